import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { listDevices } from './devices.ts';

const root = mkdtempSync(join(tmpdir(), 'kade-dev-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('by-id links are stable and point at their node; kernel names follow, in natural order', async () => {
  const dev = join(root, 'dev');
  for (const d of ['serial/by-id', 'v4l/by-id', 'dri/by-path', 'input']) mkdirSync(join(dev, d), { recursive: true });
  for (const f of ['ttyUSB0', 'ttyUSB10', 'ttyUSB2', 'ttyACM0', 'video0', 'video1', 'dri/card0', 'dri/renderD128', 'tty0', 'ttyS0', 'null', 'videoX']) {
    writeFileSync(join(dev, f), '');
  }
  symlinkSync('../../ttyUSB0', join(dev, 'serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0'));
  symlinkSync('../../ttyACM0', join(dev, 'serial/by-id/usb-dresden_elektronik_ConBee_II_DE2123456-if00'));
  symlinkSync('../../video0', join(dev, 'v4l/by-id/usb-046d_HD_Pro_Webcam_C920-video-index0'));
  symlinkSync('../card0', join(dev, 'dri/by-path/pci-0000:00:02.0-card'));

  assert.deepEqual(await listDevices(dev), [
    {
      path: join(dev, 'serial/by-id/usb-dresden_elektronik_ConBee_II_DE2123456-if00'),
      kind: 'serial',
      stable: true,
      label: 'vast',
      target: join(dev, 'ttyACM0'),
    },
    { path: join(dev, 'serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0'), kind: 'serial', stable: true, label: 'vast', target: join(dev, 'ttyUSB0') },
    { path: join(dev, 'v4l/by-id/usb-046d_HD_Pro_Webcam_C920-video-index0'), kind: 'video', stable: true, label: 'vast', target: join(dev, 'video0') },
    { path: join(dev, 'ttyACM0'), kind: 'serial', stable: false, label: null, target: null },
    { path: join(dev, 'ttyUSB0'), kind: 'serial', stable: false, label: null, target: null },
    { path: join(dev, 'ttyUSB2'), kind: 'serial', stable: false, label: null, target: null },
    { path: join(dev, 'ttyUSB10'), kind: 'serial', stable: false, label: null, target: null },
    { path: join(dev, 'dri/card0'), kind: 'video', stable: false, label: null, target: null },
    { path: join(dev, 'dri/renderD128'), kind: 'video', stable: false, label: null, target: null },
    { path: join(dev, 'video0'), kind: 'video', stable: false, label: null, target: null },
    { path: join(dev, 'video1'), kind: 'video', stable: false, label: null, target: null },
  ]);
});

test('a host without any of these folders lists nothing', async () => {
  const empty = join(root, 'empty');
  mkdirSync(empty);
  assert.deepEqual(await listDevices(empty), []);
  assert.deepEqual(await listDevices(join(root, 'missing')), []);
});
