/**
 * On a Temporal cluster (`--temporal cluster`), its own processes are killed too: each service kind the cluster has
 * several of, or that clients need (a history host — its shards move to the other —, a matching host, the frontend,
 * the system worker), SIGKILLed at least once at a random moment of the campaign, and started again on its ports a
 * few seconds later, as a supervisor (systemd, Kubernetes) would.
 */
import type { ClusterService, ServiceKind } from '../../tooling/temporal/cluster/index.js';
import type { OutageLog } from './outages.js';
import { sleep, type Dice } from './random.js';

/** The kinds killed, each at least once. */
export const KILLED_KINDS: readonly ServiceKind[] = ['history', 'matching', 'frontend', 'worker'];
/** How long a killed process stays down before it is started again. */
const DOWN_MS = [1_000, 5_000] as const;

export interface TemporalKill {
  atMs: number;
  kind: ServiceKind;
  downMs: number;
}

/**
 * When each kind is killed: once each in a random order, spread over the campaign's middle (so the kills meet orders
 * in flight and leave time to drain), and a second history kill when the campaign is long enough.
 */
export function planTemporalKills(dice: Dice, campaignMs: number): TemporalKill[] {
  const kinds = [...KILLED_KINDS];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(dice.random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j], kinds[i]];
  }
  if (campaignMs >= 60_000) kinds.push('history');
  const slot = (campaignMs * 0.7) / kinds.length;
  return kinds.map((kind, index) => ({
    atMs: campaignMs * 0.1 + slot * index + dice.random() * slot * 0.5,
    kind,
    downMs: dice.between(...DOWN_MS),
  }));
}

/**
 * SIGKILLs a random process of the kill's kind, and starts it again in the background once its time down is over;
 * the outage ends when it runs again. Resolves once it has been killed.
 */
export async function killTemporalService(
  services: readonly ClusterService[],
  kill: TemporalKill,
  context: { dice: Dice; outages: OutageLog; log: (line: string) => void; at: () => string },
): Promise<{ service: string; restarted: Promise<number> }> {
  const { dice, outages, log, at } = context;
  const victim = dice.pick(services.filter((service) => service.kind === kill.kind && service.alive()));
  log(`${at()} kill Temporal ${victim.name} (pid ${victim.pid}) for ${(kill.downMs / 1000).toFixed(1)} s`);
  const outage = outages.begin(`Temporal ${victim.name} killed`);
  await victim.kill();
  const restarted = (async () => {
    await sleep(kill.downMs - (Date.now() - outage.from));
    await victim.start();
    outages.end(outage);
    const downMs = (outage.to ?? Date.now()) - outage.from;
    log(`${at()} Temporal ${victim.name} started again (pid ${victim.pid}) after ${(downMs / 1000).toFixed(1)} s`);
    return downMs;
  })();
  return { service: victim.name, restarted };
}

export interface TemporalKiller {
  /** Kills what is due by `nowMs` of the campaign. */
  due(nowMs: number): Promise<void>;
  /** Resolves once every killed process runs again. */
  restarted(): Promise<void>;
}

/** The plan carried out as the campaign's clock runs: kills counted by kind, each time down in `downs`. */
export function temporalKiller(
  services: readonly ClusterService[],
  plan: TemporalKill[],
  tally: { kills: Partial<Record<ServiceKind, number>>; downs: number[] },
  context: { dice: Dice; outages: OutageLog; log: (line: string) => void; at: () => string },
): TemporalKiller {
  const pending = [...plan];
  const restarts: Promise<unknown>[] = [];
  return {
    async due(nowMs) {
      while (pending.length && pending[0].atMs <= nowMs) {
        const kill = pending.shift()!;
        const { restarted } = await killTemporalService(services, kill, context);
        tally.kills[kill.kind] = (tally.kills[kill.kind] ?? 0) + 1;
        restarts.push(restarted.then((downMs) => tally.downs.push(downMs)));
      }
    },
    restarted: () => Promise.all(restarts).then(() => undefined),
  };
}
