// The main thread's book of conference buses (conference-bus.ts): which slot of which bus
// each leg writes to. A bus is made when its first leg takes a slot and dropped when its last
// leaves; a freed slot is given to the next leg that joins (its count goes on from where it
// was, so a listener's cursor never runs ahead of it).
import { ConferenceBus } from './conference-bus.ts';

interface Bus {
  bus: ConferenceBus;
  slots: Map<string, number>;
}

export class BusSeats {
  private readonly buses = new Map<string, Bus>();

  /** `leg`'s slot on bus `name` (taken now if it has none), and how to find the slots of other legs on it. */
  seat(name: string, capacity: number, leg: string): { buffer: SharedArrayBuffer; slot: number; slotsOf(legs: string[]): number[] };
  seat(name: string, capacity: number, leg: null): { buffer: SharedArrayBuffer; slotsOf(legs: string[]): number[] };
  seat(name: string, capacity: number, leg: string | null): { buffer: SharedArrayBuffer; slot?: number; slotsOf(legs: string[]): number[] } {
    let found = this.buses.get(name);
    if (!found) {
      found = { bus: ConferenceBus.create(capacity), slots: new Map() };
      this.buses.set(name, found);
    }
    const bus = found;
    let slot: number | undefined;
    if (leg !== null) {
      slot = bus.slots.get(leg) ?? this.freeSlot(name, bus);
      bus.slots.set(leg, slot);
    }
    return {
      buffer: bus.bus.buffer,
      ...(slot === undefined ? {} : { slot }),
      // A leg heard before its own mix arrives gets its slot now: its frames land there once it does.
      slotsOf: (legs) => legs.map((other) => {
        const taken = bus.slots.get(other) ?? this.freeSlot(name, bus);
        bus.slots.set(other, taken);
        return taken;
      }),
    };
  }

  /** The bus `name` (made now if new) and the slots of `legs` on it, for a reader that writes nothing (a room tap). */
  slots(name: string, capacity: number): { buffer: SharedArrayBuffer; slotsOf(legs: string[]): number[] } {
    return this.seat(name, capacity, null);
  }

  leave(name: string, leg: string): void {
    const bus = this.buses.get(name);
    if (!bus) return;
    bus.slots.delete(leg);
    if (bus.slots.size === 0) this.buses.delete(name);
  }

  /** Buses in use (a leak would show here). */
  get size(): number {
    return this.buses.size;
  }

  private freeSlot(name: string, bus: Bus): number {
    const taken = new Set(bus.slots.values());
    const capacity = ConferenceBus.capacityOf(bus.bus.buffer);
    for (let slot = 0; slot < capacity; slot++) if (!taken.has(slot)) return slot;
    throw new Error(`conference bus ${name} is full (${capacity} legs)`);
  }
}
