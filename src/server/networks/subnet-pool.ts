/**
 * Kade's own address pool for the networks of the apps' compose projects. The engine's default pools
 * hold about 30 networks; after that an install fails with words nobody understands. Kade gives each
 * project network a small block of its pool (SVC_APP_SUBNET_POOL) instead, clear of every network the
 * engine has and of the host's own routes.
 */
import { formatIPv4, overlaps, parseCidr } from '../../shared/cidr.ts';
import { AppError } from '../core/errors.ts';

export interface SubnetPoolDeps {
  /** The pool, a CIDR block such as 10.200.0.0/16. */
  pool: string;
  /** The prefix length of each block (26: 64 addresses, 62 for containers). */
  blockPrefix: number;
  /** Subnets the engine's networks use now. */
  engineSubnets: () => Promise<string[]>;
  /** Subnets recorded in the apps' metadata (an app that is down has no engine network but keeps its block). */
  recorded: () => string[];
  /** The host's own routes, when they can be read; a failure is not fatal. */
  hostSubnets?: () => Promise<string[]>;
}

export interface SubnetPool {
  /** One free block per name, reserved until `release`; `network_pool_exhausted` when the pool is full. */
  allocate(owner: string, names: string[]): Promise<Record<string, string>>;
  release(owner: string): void;
}

export function createSubnetPool(d: SubnetPoolDeps): SubnetPool {
  const pool = parseCidr(d.pool);
  if (!pool || d.blockPrefix < pool.prefix || d.blockPrefix > 30) {
    throw new AppError('validation', `SVC_APP_SUBNET_POOL '${d.pool}' is not a CIDR block that holds /${d.blockPrefix} blocks`);
  }
  const reserved = new Map<string, string[]>();
  // One allocation at a time: two installs started together must not pick the same block.
  let queue: Promise<unknown> = Promise.resolve();

  async function pick(owner: string, names: string[]): Promise<Record<string, string>> {
    if (names.length === 0) return {};
    // An engine that cannot be asked cannot start the app either: its install fails at `up` with that reason, and
    // keeps its folder for a retry; the block chosen meanwhile is still clear of every app Kade knows.
    const [engine, host] = await Promise.all([d.engineSubnets().catch(() => []), d.hostSubnets ? d.hostSubnets().catch(() => []) : Promise.resolve([])]);
    const taken = [...engine, ...host, ...d.recorded(), ...[...reserved.values()].flat()];
    const size = 2 ** (32 - d.blockPrefix);
    const count = 2 ** (d.blockPrefix - (pool?.prefix ?? 0));
    const out: Record<string, string> = {};
    const mine: string[] = [];
    let i = 0;
    for (const name of names) {
      let found: string | null = null;
      for (; i < count && !found; i++) {
        const block = `${formatIPv4(((pool?.ip ?? 0) + i * size) >>> 0)}/${d.blockPrefix}`;
        if (!taken.some((t) => overlaps(t, block))) found = block;
      }
      if (!found) {
        throw new AppError(
          'network_pool_exhausted',
          `Kade's address pool ${d.pool} has no free /${d.blockPrefix} block left for the networks of '${owner}'. Remove apps or networks that are no longer used, or set SVC_APP_SUBNET_POOL to a larger block.`,
          { params: { stack: owner, pool: d.pool } },
        );
      }
      out[name] = found;
      mine.push(found);
    }
    reserved.set(owner, [...(reserved.get(owner) ?? []), ...mine]);
    return out;
  }

  return {
    allocate(owner, names) {
      const next = queue.then(() => pick(owner, names));
      queue = next.catch(() => undefined);
      return next;
    },
    release(owner) {
      reserved.delete(owner);
    },
  };
}
