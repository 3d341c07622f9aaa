// `--trunk NAME` and `--messaging-carrier NAME` on `switchboard numbers import|bind`: a live
// number is bound to links of the operator's carriers file by name. The names are checked
// against the file the server loads (SWITCHBOARD_CARRIERS_FILE), so a typo is caught here
// rather than when the first call or message fails.
import { UsageError } from './args.ts';
import { loadCarrierLinks } from '../carriers/config/load.ts';
import type { LinkRole } from '../carriers/config/registry.ts';

export interface Bindings {
  voiceTrunk?: string | null;
  messagingCarrier?: string | null;
}

/** `none` unbinds (back to the default link); absent leaves the binding as it is. */
export function bindingsFrom(values: Record<string, unknown>, mode: string): Bindings {
  const trunk = values.trunk as string | undefined;
  const messaging = values['messaging-carrier'] as string | undefined;
  if (trunk === undefined && messaging === undefined) return {};
  if (mode !== 'live') throw new UsageError('--trunk and --messaging-carrier bind live numbers; sandbox numbers run on the simulator');
  // Names and roles only: binding connects to nothing, so the file's env: secrets need not be set here.
  const links = loadCarrierLinks(process.env.SWITCHBOARD_CARRIERS_FILE);
  const check = (flag: string, name: string | undefined, role: LinkRole): string | null | undefined => {
    if (name === undefined) return undefined;
    if (name === 'none') return null;
    const link = links.find((l) => l.name === name);
    const candidates = links.filter((l) => l.role === role).map((l) => l.name);
    const known = candidates.length > 0 ? `the ${role} links are ${candidates.join(', ')}` : `it configures no ${role} links`;
    if (!process.env.SWITCHBOARD_CARRIERS_FILE) throw new UsageError(`--${flag} ${name}: SWITCHBOARD_CARRIERS_FILE is not set, so there is no link to bind to`);
    if (!link) throw new UsageError(`--${flag} ${name}: the carriers file has no link of that name; ${known}`);
    if (link.role !== role) throw new UsageError(`--${flag} ${name}: ${link.path} is a ${link.role} link; ${known}`);
    return name;
  };
  const bindings: Bindings = {};
  const t = check('trunk', trunk, 'voice');
  const m = check('messaging-carrier', messaging, 'messaging');
  if (t !== undefined) bindings.voiceTrunk = t;
  if (m !== undefined) bindings.messagingCarrier = m;
  return bindings;
}
