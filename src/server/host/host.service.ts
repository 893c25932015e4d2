import type { DeviceT, PortCheckT } from '../../shared/host.ts';
import { errorMessage } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';
import { listDevices } from './devices.ts';
import type { HostProbe } from './host-probe.ts';
import { holderOf, nextFreePort, publishedPorts } from './ports.ts';

export interface HostService {
  /** Free or taken: ports published by containers (one listing) and listeners on the engine's host. */
  checkPort(port: number): Promise<PortCheckT>;
  /** Serial ports and video devices that an app could be given. */
  devices(): Promise<DeviceT[]>;
}

export interface HostServiceDeps {
  engine: Pick<Engine, 'listContainers'>;
  probe: HostProbe;
  /** Where device nodes are read; a test points it at a temp folder. */
  devRoot?: string;
}

export function createHostService(deps: HostServiceDeps): HostService {
  return {
    async checkPort(port) {
      const [listing, host] = await Promise.all([
        deps.engine.listContainers().then(
          (list) => ({ ok: true as const, held: publishedPorts(list) }),
          (err: unknown) => ({ ok: false as const, held: new Map<number, string>(), message: errorMessage(err) }),
        ),
        deps.probe.listeners(),
      ]);
      const listeners = host.ok ? host.listeners : null;
      const taken = (p: number) => holderOf(p, listing.held, listeners).taken;
      const here = holderOf(port, listing.held, listeners);
      const notes: string[] = [];
      if (!listing.ok) notes.push(`The container engine could not list containers (${listing.message}), so no container can be named.`);
      const missingImage = !host.ok && host.reason === 'image_missing' ? (host.image ?? null) : null;
      if (missingImage)
        notes.push(
          `The port check needs the image '${missingImage}' (SVC_PROBE_IMAGE) on the container engine and it is missing: get it with \`docker pull ${missingImage}\`, or set SVC_PROBE_IMAGE to an image with busybox that is present. Until then 'free' is an assumption: a program outside the container engine may still use the port.`,
        );
      else if (!host.ok)
        notes.push(
          `The host could not be inspected (${host.message}): 'free' is an assumption, a program outside the container engine may still use the port.`,
        );
      return {
        port,
        free: !here.taken,
        held_by: here.by,
        alternative: here.taken ? nextFreePort(port, taken) : null,
        host_inspected: host.ok,
        ...(missingImage ? { missing_image: missingImage } : {}),
        ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
      };
    },
    devices: () => listDevices(deps.devRoot),
  };
}
