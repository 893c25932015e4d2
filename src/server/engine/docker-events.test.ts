import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseContainerEvent, sinceOf } from './docker-events.ts';

test("the adapter reads an event's timeNano exactly: as a JSON number it would round past 2^53", () => {
  const line = '{"Type":"container","Action":"start","Actor":{"ID":"abc","Attributes":{"name":"web"}},"time":1764324679,"timeNano":1764324679123456789}';
  assert.equal(parseContainerEvent(line)?.timeNano, '1764324679123456789');
  assert.equal(sinceOf('1764324679123456789'), '1764324679.123456789');
});
