// What `npm run cluster` takes from its environment and flags besides the service URLs: the ports its processes
// listen on, and how it prints a URL (never with its password).

/** The cluster's processes in the order they take consecutive ports from a given first port. */
export const CLUSTER_PROCESSES = [
  'sequencer',
  'standby',
  'projector',
  'projector standby',
  'settlement',
  'settlement standby',
  'gateway 1',
  'gateway 2',
  'realtime 1',
  'realtime 2',
] as const;

export type ClusterProcess = (typeof CLUSTER_PROCESSES)[number];

export class ClusterSettingError extends Error {}

/**
 * The port each process listens on: with a first port given (`ODDEX_PORT`, or `--port`, as for one process) the
 * processes take it and the ones after it, in CLUSTER_PROCESSES order; without one (or 0), each a free port.
 */
export function clusterPorts(env: NodeJS.ProcessEnv, argv: readonly string[]): Record<ClusterProcess, number> {
  const flag = argv.indexOf('--port');
  const given = flag >= 0 ? argv[flag + 1] : env.ODDEX_PORT;
  const first = given === undefined || given === '' ? 0 : Number(given);
  const last = first + CLUSTER_PROCESSES.length - 1;
  if (!/^\d+$/.test(String(given ?? '0')) || (first !== 0 && (first < 1 || last > 65535))) {
    throw new ClusterSettingError(
      `${flag >= 0 ? '--port' : 'ODDEX_PORT'} must be 0 (free ports) or the first of ${CLUSTER_PROCESSES.length} ports up to 65535, not ${JSON.stringify(given)}`,
    );
  }
  return Object.fromEntries(CLUSTER_PROCESSES.map((name, i) => [name, first === 0 ? 0 : first + i])) as Record<ClusterProcess, number>;
}

/** A URL as printed: its password (or a token in the user part) replaced by `***`; anything unparsable as given. */
export function maskedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.password) u.password = '***';
  // A user part alone may be the secret (redis://:secret@..., nats://token@...).
  else if (u.username && !u.protocol.startsWith('postgres')) u.username = '***';
  return u.toString();
}
