import type { Dirent } from 'node:fs';
import { readdir, readlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { DeviceT } from '../../shared/host.ts';

const SERIAL = /^tty(USB|ACM)\d+$/;
const VIDEO = /^video\d+$/;

async function entries(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    // No such folder (no USB serial adapter, no camera) or not readable: nothing to list there.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EACCES') return [];
    throw err;
  }
}

/** by-id links name the device by vendor and serial number, so the path survives replugging: 'vast'. */
async function stableLinks(dir: string, kind: DeviceT['kind']): Promise<DeviceT[]> {
  const found: DeviceT[] = [];
  for (const e of await entries(dir)) {
    if (e.isDirectory()) continue;
    const path = join(dir, e.name);
    const target = e.isSymbolicLink() ? resolve(dirname(path), await readlink(path)) : null;
    found.push({ path, kind, stable: true, label: 'vast', target });
  }
  return found;
}

const node = (path: string, kind: DeviceT['kind']): DeviceT => ({ path, kind, stable: false, label: null, target: null });
const byPath = (a: DeviceT, b: DeviceT) => a.path.localeCompare(b.path, 'en', { numeric: true });

/**
 * Serial ports and video devices under `devRoot`: the stable by-id links first (serial, then
 * v4l), then the kernel names (`ttyUSB*`, `ttyACM*`, `video*`, `dri/*`), which can change on replug.
 */
export async function listDevices(devRoot = '/dev'): Promise<DeviceT[]> {
  const top = (await entries(devRoot)).filter((e) => !e.isDirectory());
  const dri = (await entries(join(devRoot, 'dri'))).filter((e) => !e.isDirectory());
  const plain = [
    ...top.filter((e) => SERIAL.test(e.name)).map((e) => node(join(devRoot, e.name), 'serial')),
    ...top.filter((e) => VIDEO.test(e.name)).map((e) => node(join(devRoot, e.name), 'video')),
    ...dri.map((e) => node(join(devRoot, 'dri', e.name), 'video')),
  ];
  return [
    ...(await stableLinks(join(devRoot, 'serial', 'by-id'), 'serial')).sort(byPath),
    ...(await stableLinks(join(devRoot, 'v4l', 'by-id'), 'video')).sort(byPath),
    ...plain.sort((a, b) => (a.kind === b.kind ? byPath(a, b) : a.kind === 'serial' ? -1 : 1)),
  ];
}
