// The per-request metrics as plain numbers, read into the registry only when it is scraped.
//
// prom-client's Counter and Histogram validate and hash their labels on every inc() and
// observe(), even through a child from labels(): measured side by side, that put metrics-on
// at 107 to 113% of metrics-off CPU for GET /v1/account, against a budget of 105%. These
// series are updated on every answered request, so they keep a child per label set (found
// once, by a string key) holding a count, or bucket counts and a sum; the registry asks them
// for prom-client's export shape at scrape time, and prints them as it prints any other.
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface ExportedValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** What a registry reads from a metric at scrape time (prom-client's MetricObjectWithValues). */
interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: ExportedValue[];
  aggregator: 'sum';
}

interface SeriesOptions {
  name: string;
  help: string;
  /** The labels every child carries (the docs' metrics table names them). */
  labelNames: readonly string[];
  registers: Registry[];
}

abstract class Series<Child> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly aggregator = 'sum' as const;
  private readonly children = new Map<string, { labels: Labels; child: Child }>();

  constructor(options: SeriesOptions) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    for (const registry of options.registers) registry.registerMetric(this as never);
  }

  /** The child for one label set; `key` must identify `labels` (it is how the child is found again). */
  child(key: string, labels: () => Labels): Child {
    let found = this.children.get(key);
    if (!found) {
      found = { labels: labels(), child: this.newChild() };
      this.children.set(key, found);
    }
    return found.child;
  }

  reset(): void {
    this.children.clear();
  }

  protected abstract newChild(): Child;
  protected abstract export(labels: Labels, child: Child): ExportedValue[];
  abstract readonly type: Exported['type'];

  async get(): Promise<Exported> {
    const values: ExportedValue[] = [];
    for (const { labels, child } of this.children.values()) values.push(...this.export(labels, child));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

export interface CounterChild {
  value: number;
}

export class RequestCounter extends Series<CounterChild> {
  readonly type = 'counter' as const;
  protected newChild(): CounterChild {
    return { value: 0 };
  }
  protected export(labels: Labels, child: CounterChild): ExportedValue[] {
    return [{ labels, value: child.value }];
  }
}

export interface HistogramChild {
  /** Observations per bucket (not cumulative), the last one past every bound (+Inf). */
  counts: Float64Array;
  sum: number;
  observe(value: number): void;
}

export class RequestHistogram extends Series<HistogramChild> {
  readonly type = 'histogram' as const;
  private readonly upperBounds: number[];

  constructor(options: SeriesOptions & { buckets: number[] }) {
    super(options);
    this.upperBounds = [...options.buckets].sort((a, b) => a - b);
  }

  protected newChild(): HistogramChild {
    const bounds = this.upperBounds;
    const child: HistogramChild = {
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
      observe(value) {
        let at = 0;
        while (at < bounds.length && value > bounds[at]!) at++;
        child.counts[at]!++;
        child.sum += value;
      },
    };
    return child;
  }

  protected export(labels: Labels, child: HistogramChild): ExportedValue[] {
    const out: ExportedValue[] = [];
    let cumulative = 0;
    this.upperBounds.forEach((bound, i) => {
      cumulative += child.counts[i]!;
      out.push({ labels: { le: String(bound), ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
    });
    cumulative += child.counts[this.upperBounds.length]!;
    out.push({ labels: { le: '+Inf', ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
    out.push({ labels, value: child.sum, metricName: `${this.name}_sum` });
    out.push({ labels, value: cumulative, metricName: `${this.name}_count` });
    return out;
  }
}
