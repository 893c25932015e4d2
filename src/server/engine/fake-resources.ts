/**
 * The images, networks and volumes of the fake engine (fake-engine.ts), answering as the Docker adapter does over a
 * real daemon: the same AppError codes and params for the same refusals. Deterministic ids and address plans.
 */
import { formatIPv4, overlaps, parseCidr } from '../../shared/cidr.ts';
import { AppError } from '../core/errors.ts';
import { COMPOSE_PROJECT_LABEL, type ImageSummary, type NetworkSpec, type NetworkSummary } from './engine.ts';
import { splitReference } from './image-pull.ts';

/** `busybox` → `busybox:latest`; a tag or digest stays. */
export function normaliseRef(ref: string): string {
  const { fromImage, tag } = splitReference(ref);
  return `${fromImage.replace(/^docker\.io\/(library\/)?/, '')}${tag.startsWith('sha256:') ? '@' : ':'}${tag}`;
}

const hexId = (n: number, salt: string) => `${salt}${n.toString(16)}`.padStart(64, '0');

export function createImages() {
  const images = new Map<string, ImageSummary>();
  const registry = new Map<string, string[]>();
  let n = 0;
  const add = (ref: string, digests: string[] = []) => {
    const key = normaliseRef(ref);
    n += 1;
    const image = { id: `sha256:${hexId(n, 'a')}`, repoDigests: digests };
    images.set(key, image);
    return image.id;
  };
  return {
    add,
    offer(ref: string, digests: string[] = []) {
      registry.set(normaliseRef(ref), digests);
    },
    inspect(ref: string): ImageSummary | null {
      const byRef = images.get(normaliseRef(ref));
      if (byRef) return { ...byRef, repoDigests: [...byRef.repoDigests] };
      const byId = [...images.values()].find((i) => i.id === ref || (ref.length >= 4 && i.id.slice(7).startsWith(ref.replace(/^sha256:/, ''))));
      return byId ? { ...byId, repoDigests: [...byId.repoDigests] } : null;
    },
    tags(repository: string): string[] {
      return [...images.keys()].filter((k) => !k.includes('@') && k.slice(0, k.lastIndexOf(':')) === repository).map((k) => k.slice(k.lastIndexOf(':') + 1));
    },
    pull(ref: string, onStep?: (line: string) => void): void {
      const key = normaliseRef(ref);
      const digests = registry.get(key);
      if (digests === undefined) {
        throw new AppError(
          'registry_unreachable',
          `pull access denied for ${splitReference(ref).fromImage}, repository does not exist or may require 'docker login'`,
          {
            params: { image: ref },
          },
        );
      }
      onStep?.(`${splitReference(ref).tag}: Pulling from ${splitReference(ref).fromImage}`);
      add(key, digests);
      onStep?.(`Status: Downloaded newer image for ${key}`);
    },
  };
}

export interface FakeNetwork extends NetworkSummary {
  /** Addresses handed out so far: the next container gets the one after. */
  next: number;
}

const PREDEFINED = ['bridge', 'host', 'none'];

export function createNetworks(interfaces: () => readonly string[]) {
  const networks = new Map<string, FakeNetwork>();
  let n = 0;
  let pool = 18;
  const make = (name: string, driver: string, subnet: string | null, gateway: string | null): FakeNetwork => {
    n += 1;
    return { id: hexId(n, 'b'), name, driver, subnets: subnet ? [{ subnet, gateway, range: null }] : [], parent: null, labels: {}, next: 1 };
  };
  networks.set('bridge', make('bridge', 'bridge', '172.17.0.0/16', '172.17.0.1'));
  networks.set('host', make('host', 'host', null, null));
  networks.set('none', make('none', 'null', null, null));

  /** The next free 172.N.0.0/16, as the engine's default pools hand them out. */
  function freeSubnet(): string {
    while (pool < 32) {
      const candidate = `172.${pool++}.0.0/16`;
      if (![...networks.values()].some((x) => x.subnets.some((s) => overlaps(s.subnet, candidate)))) return candidate;
    }
    throw new AppError('network_invalid', 'could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network', {
      params: { name: '', code: 'engine_refused' },
    });
  }

  return {
    get: (name: string) => networks.get(name) ?? [...networks.values()].find((x) => x.id === name) ?? null,
    list: (): NetworkSummary[] =>
      [...networks.values()].map(({ next: _next, ...x }) => ({ ...x, subnets: x.subnets.map((s) => ({ ...s })), labels: { ...x.labels } })),
    create(spec: NetworkSpec): void {
      if (networks.has(spec.name)) throw new AppError('name_taken', `the engine already has a network '${spec.name}'`, { params: { name: spec.name } });
      const refuse = (why: string) =>
        new AppError('network_invalid', `the engine refused network '${spec.name}': ${why}`, { params: { name: spec.name, code: 'engine_refused' } });
      if (spec.driver === 'macvlan' && spec.parent && !interfaces().includes(spec.parent)) throw refuse(`invalid subinterface vlan name ${spec.parent}`);
      const subnet = spec.subnet ?? freeSubnet();
      if ([...networks.values()].some((x) => x.subnets.some((s) => overlaps(s.subnet, subnet))))
        throw refuse('Pool overlaps with other one on this address space');
      const base = parseCidr(subnet)?.ip ?? 0;
      const net = make(spec.name, spec.driver, subnet, spec.gateway ?? formatIPv4(base + 1));
      net.subnets = [{ subnet, gateway: spec.gateway ?? formatIPv4(base + 1), range: spec.range }];
      net.parent = spec.parent;
      net.labels = { ...spec.labels };
      networks.set(spec.name, net);
    },
    /** `inUse`: whether a running container is attached to it. */
    remove(name: string, inUse: (net: string) => boolean): void {
      const net = networks.get(name);
      if (!net) return;
      if (PREDEFINED.includes(name) || inUse(name)) {
        const why = PREDEFINED.includes(name)
          ? `${name} is a pre-defined network and cannot be removed`
          : `error while removing network: network ${name} has active endpoints`;
        throw new AppError('network_in_use', `network '${name}' still has containers: ${why}`, { params: { name, stacks: '' } });
      }
      networks.delete(name);
    },
    /** An address for a container joining `name`; null on networks without addresses (host, none). */
    address(name: string): string | null {
      const net = networks.get(name);
      const cidr = net?.subnets[0] && parseCidr(net.subnets[0].subnet);
      if (!net || !cidr) return null;
      net.next += 1;
      return formatIPv4(cidr.ip + net.next);
    },
  };
}

export function createVolumes() {
  const volumes = new Map<string, Record<string, string>>();
  return {
    add(name: string, labels: Record<string, string> = {}) {
      if (!volumes.has(name)) volumes.set(name, { ...labels });
    },
    list: (project: string) => [...volumes.entries()].filter(([, l]) => l[COMPOSE_PROJECT_LABEL] === project).map(([name]) => name),
    remove(name: string, usedBy: string | null): void {
      if (!volumes.has(name)) return;
      if (usedBy) {
        throw new AppError('conflict', `remove ${name}: volume is in use - [${usedBy}]`);
      }
      volumes.delete(name);
    },
  };
}
