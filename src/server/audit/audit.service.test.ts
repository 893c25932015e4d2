import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuditQuery } from '../../shared/audit.ts';
import { AppError } from '../core/errors.ts';
import type { AuditFilter, AuditRepo } from './audit.repo.ts';
import { createAuditService, periodBounds } from './audit.service.ts';

const NOW = new Date('2024-05-10T12:00:00.000Z');

test('a preset counts back from now; a bare date covers its whole day', () => {
  assert.deepEqual(periodBounds({ period: '24h' }, NOW), { from: '2024-05-09T12:00:00.000Z' });
  assert.deepEqual(periodBounds({ period: '7d' }, NOW), { from: '2024-05-03T12:00:00.000Z' });
  assert.deepEqual(periodBounds({ from: '2024-05-01', to: '2024-05-02' }, NOW), { from: '2024-05-01T00:00:00.000Z', to: '2024-05-03T00:00:00.000Z' });
  assert.deepEqual(periodBounds({ to: '2024-05-02T08:00:00+02:00' }, NOW), { to: '2024-05-02T06:00:00.000Z' });
  assert.deepEqual(periodBounds({}, NOW), {});
});

test('a preset and a from narrow together: the later start wins', () => {
  assert.deepEqual(periodBounds({ period: '30d', from: '2024-05-08' }, NOW), { from: '2024-05-08T00:00:00.000Z' });
  assert.deepEqual(periodBounds({ period: '24h', from: '2024-01-01' }, NOW), { from: '2024-05-09T12:00:00.000Z' });
});

test('the query schema bounds paging and refuses unknown presets and malformed dates', () => {
  assert.equal(AuditQuery.parse({}).limit, 50);
  assert.equal(AuditQuery.safeParse({ limit: '201' }).success, false);
  assert.equal(AuditQuery.safeParse({ offset: '-1' }).success, false);
  assert.equal(AuditQuery.safeParse({ period: '1y' }).success, false);
  assert.equal(AuditQuery.safeParse({ from: 'yesterday' }).success, false);
  assert.equal(AuditQuery.safeParse({ from: '2024-05-01' }).success, true);
});

test('the service refuses anyone but an admin and passes a trimmed text on', () => {
  const seen: AuditFilter[] = [];
  const repo = {
    search: (f: AuditFilter) => {
      seen.push(f);
      return { entries: [], total: 0 };
    },
    facet: () => [],
    count: () => 0,
    insert: () => undefined,
  } as unknown as AuditRepo;
  const audit = createAuditService({ repo, clock: () => NOW });
  const q = AuditQuery.parse({ q: '  ' });
  assert.throws(
    () => audit.list({ user: 'op', role: 'operator', ip: '::1' }, q),
    (e: unknown) => e instanceof AppError && e.code === 'forbidden',
  );
  const answer = audit.list({ user: 'root', role: 'admin', ip: '::1' }, AuditQuery.parse({ q: ' web ', source: 'stacks' }));
  assert.equal(seen[0]?.text, 'web');
  assert.equal(seen[0]?.source, 'stacks');
  assert.deepEqual(Object.keys(answer.facets), ['source', 'action', 'status', 'user']);
  audit.list({ user: 'root', role: 'admin', ip: '::1' }, q);
  assert.equal(seen[1]?.text, undefined);
});
