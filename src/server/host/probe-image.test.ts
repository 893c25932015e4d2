import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createProbeImagePuller } from './probe-image.ts';

/** An engine without the image that counts the pulls asked of it. */
function engineWithout() {
  const pulls: string[] = [];
  let present = false;
  return {
    pulls,
    engine: {
      inspectImage: async () => (present ? ({ Id: 'sha256:1' } as never) : null),
      pullImage: async (image: string) => {
        pulls.push(image);
        present = true;
      },
    },
  };
}

test('a missing probe image is pulled once; with pulling off (SVC_PROBE_PULL=0) it never is', async () => {
  const on = engineWithout();
  const puller = createProbeImagePuller({ engine: on.engine as never, image: 'busybox:1.37' });
  assert.equal(await puller.ensure(), true);
  assert.equal(await puller.ensure(), true);
  assert.deepEqual(on.pulls, ['busybox:1.37']);

  const off = engineWithout();
  const idle = createProbeImagePuller({ engine: off.engine as never, image: 'busybox:1.37', pull: false });
  for (let i = 0; i < 3; i++) assert.equal(await idle.ensure(), false);
  assert.deepEqual(off.pulls, []);
});
