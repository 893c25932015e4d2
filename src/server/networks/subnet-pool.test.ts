import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAppError } from '../core/errors.ts';
import { createSubnetPool } from './subnet-pool.ts';

test('blocks are handed out clear of the engine, the host, recorded apps and earlier reservations', async () => {
  const pool = createSubnetPool({
    pool: '10.200.0.0/24',
    blockPrefix: 26,
    engineSubnets: async () => ['10.200.0.0/26', '172.17.0.0/16'],
    recorded: () => ['10.200.0.64/26'],
    hostSubnets: async () => ['192.0.2.0/24'],
  });
  assert.deepEqual(await pool.allocate('a', ['default']), { default: '10.200.0.128/26' });
  assert.deepEqual(await pool.allocate('b', ['default']), { default: '10.200.0.192/26' });
  await assert.rejects(
    pool.allocate('c', ['default']),
    (e: unknown) => isAppError(e) && e.code === 'network_pool_exhausted' && /10\.200\.0\.0\/24/.test(e.message),
  );
  pool.release('a');
  assert.deepEqual(await pool.allocate('c', ['default']), { default: '10.200.0.128/26' });
});

test('concurrent allocations never share a block, and a host network over the pool is avoided', async () => {
  const pool = createSubnetPool({
    pool: '10.200.0.0/16',
    blockPrefix: 26,
    engineSubnets: async () => [],
    recorded: () => [],
    hostSubnets: async () => ['10.200.0.0/25'],
  });
  const got = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.allocate(`app${i}`, ['default', 'back'])));
  const blocks = got.flatMap((g) => Object.values(g));
  assert.equal(new Set(blocks).size, 40);
  assert.ok(!blocks.includes('10.200.0.0/26') && !blocks.includes('10.200.0.64/26'));
});

test('a pool that is no CIDR block is refused at start', () => {
  assert.throws(() => createSubnetPool({ pool: '10.200.0.0', blockPrefix: 26, engineSubnets: async () => [], recorded: () => [] }), /SVC_APP_SUBNET_POOL/);
});
