/**
 * Shared networks (SPEC: Network): SHARED_NETWORK and APP_NETWORKS with their address plans, the live
 * review while typing, the range helper, the address check with a proposal, and the host's own network.
 * Knows nothing of HTTP; the apps' side (joining, leaving) is stacks/use-cases/connect.ts.
 */
import { contains, formatIPv4, normaliseCidr, parseCidr, parseIPv4, proposeFree, rangeBlocks } from '../../shared/cidr.ts';
import { reviewNetwork } from '../../shared/network-review.ts';
import type { HostNetworkT, IpCheckT, NetworkCreateT, NetworkListT, NetworkProblemT, NetworkReviewT, NetworkViewT } from '../../shared/networks.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, notFound } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { ContainerSummary, Engine, NetworkSummary } from '../engine/engine.ts';
import type { HostProbe } from '../host/host-probe.ts';
import { detectHostNetwork, type Neighbour, parseArp, parseRoutes } from './host-net.ts';
import type { NetworkDef, NetworksRepo } from './networks.repo.ts';
import type { SubnetPool } from './subnet-pool.ts';

/** Engine networks that are never shared networks: its own, and the project networks of compose apps. */
const ENGINE_OWN = new Set(['bridge', 'host', 'none']);

export const NETWORK_LABEL = 'kade.network';

export interface NetworksDeps {
  repo: NetworksRepo;
  engine: Pick<Engine, 'listNetworks' | 'createNetwork' | 'removeNetwork' | 'listContainers'>;
  probe: Pick<HostProbe, 'netTables'>;
  settings: { sharedNetworks(): { shared: string; app: readonly string[] }; setAppNetworks(names: string[]): void };
  pool: SubnetPool;
  /** The apps whose metadata joins a network. */
  stacksOn: (network: string) => string[];
  /** The app a compose project belongs to (an adopted app keeps its own project name); null for others. */
  stackOfProject: (project: string) => string | null;
  events: EventBus;
  clock: () => Date;
  /** Extra labels on every network Kade creates (tests mark theirs). */
  labels?: Record<string, string>;
}

const problem = (code: string, message: string, params: Record<string, string | number> = {}): NetworkProblemT => ({ code, message, params });

type ReviewInput = { subnet?: string | undefined; gateway?: string | undefined; range?: string | undefined; interface?: string | undefined };

/** The service wires its use cases to its dependencies; each is a function of its own below. */
export function createNetworksService(d: NetworksDeps) {
  return {
    list: (actor: Actor) => list(d, actor),
    review: (input: ReviewInput, except?: string) => review(d, input, except),
    range: (from: string, to: string) => rangeOrRefuse(from, to),
    create: (actor: Actor, input: NetworkCreateT) => create(d, actor, input),
    remove: (actor: Actor, name: string) => remove(d, actor, name),
    ensure: (name: string) => ensure(d, name),
    subnetOf: (name: string) => subnetOf(d, name),
    ipCheck: (actor: Actor, name: string, ip: string) => ipCheck(d, actor, name, ip),
    isKade: (name: string) => isKade(d, name),
    /** Subnets of every engine network (for Kade's own pool). */
    engineSubnets: async () => (await d.engine.listNetworks()).flatMap((n) => n.subnets.map((s) => s.subnet)),
    hostSubnets: async () => (await hostSubnets(d)).map((h) => h.subnet),
  };
}

const kadeNames = (d: NetworksDeps): { shared: string; app: readonly string[] } => d.settings.sharedNetworks();

function isKade(d: NetworksDeps, name: string): boolean {
  const k = kadeNames(d);
  return k.shared === name || k.app.includes(name);
}

const kindOf = (d: NetworksDeps, name: string): NetworkViewT['kind'] => (name === kadeNames(d).shared ? 'shared' : 'app');

async function hostTables(d: Pick<NetworksDeps, 'probe'>) {
  const r = await d.probe.netTables();
  return r.ok ? { ok: true as const, tables: r.tables } : { ok: false as const, message: r.message };
}

/** The host's own networks (routes with a prefix), for overlap checks and the pool (built before the networks service). */
export async function hostSubnets(d: Pick<NetworksDeps, 'probe'>): Promise<{ name: string; subnet: string }[]> {
  const t = await hostTables(d);
  if (!t.ok) return [];
  return parseRoutes(t.tables.route)
    .filter((r) => r.prefix > 0 && !/^(docker\d*|br-|veth)/.test(r.iface))
    .map((r) => ({ name: r.iface, subnet: `${formatIPv4(r.dest)}/${r.prefix}` }));
}

function present(
  d: NetworksDeps,
  name: string,
  kind: NetworkViewT['kind'],
  net: NetworkSummary | undefined,
  def: NetworkDef | null,
  containers: ContainerSummary[],
): NetworkViewT {
  const ipam = net?.subnets[0];
  return {
    name,
    kind,
    driver: net?.driver ?? def?.driver ?? 'bridge',
    exists: net !== undefined,
    subnet: ipam?.subnet ?? def?.subnet ?? null,
    gateway: ipam?.gateway ?? def?.gateway ?? null,
    range: ipam?.range ?? def?.range ?? null,
    interface: net?.parent ?? def?.iface ?? null,
    members: containers
      .filter((c) => c.networks && Object.hasOwn(c.networks, name))
      .map((c) => ({
        stack: c.project ? d.stackOfProject(c.project) : null,
        container: c.name,
        service: c.service,
        ip: c.networks?.[name] ?? null,
      })),
  };
}

async function list(d: NetworksDeps, actor: Actor): Promise<NetworkListT> {
  requireRole(actor, 'viewer', 'the networks');
  const [nets, containers, tables] = await Promise.all([d.engine.listNetworks(), d.engine.listContainers(), hostTables(d)]);
  const byName = new Map(nets.map((n) => [n.name, n]));
  const k = kadeNames(d);
  const mine = [k.shared, ...k.app.filter((n) => n !== k.shared)];
  const out: NetworkViewT[] = mine.map((n) => present(d, n, n === k.shared ? 'shared' : 'app', byName.get(n), d.repo.get(n), containers));
  for (const n of nets) {
    if (mine.includes(n.name) || ENGINE_OWN.has(n.name) || n.labels['com.docker.compose.network'] !== undefined) continue;
    out.push(present(d, n.name, 'engine', n, null, containers));
  }
  const defs = out.filter((v) => v.kind !== 'engine').map((v) => ({ subnet: v.subnet, interface: v.interface }));
  const host: HostNetworkT | null = tables.ok ? detectHostNetwork(tables.tables, defs) : null;
  return { networks: out, host, host_error: tables.ok ? null : tables.message };
}

/** The review of what the user typed, against the host's networks and the engine's. */
async function review(d: NetworksDeps, input: ReviewInput, except?: string): Promise<NetworkReviewT> {
  const [nets, host] = await Promise.all([d.engine.listNetworks(), hostSubnets(d)]);
  const engineNetworks = nets.filter((n) => n.name !== except).flatMap((n) => n.subnets.map((s) => ({ name: n.name, subnet: s.subnet })));
  return reviewNetwork(clean(input), { hostNetworks: host, engineNetworks });
}

type Created = { network: NetworkViewT; warnings: NetworkProblemT[] };

async function create(d: NetworksDeps, actor: Actor, input: NetworkCreateT): Promise<Created> {
  requireRole(actor, 'admin', 'creating a network');
  const { name } = input;
  if (ENGINE_OWN.has(name)) throw new AppError('name_taken', `'${name}' is a network of the engine itself`, { params: { name }, fields: ['name'] });
  const existing = (await d.engine.listNetworks()).find((n) => n.name === name);
  if ('take_over' in input) return takeOver(d, actor, name, existing);
  if (existing || kadeNames(d).app.includes(name)) {
    throw new AppError('name_taken', `a network named '${name}' exists already`, { params: { name }, fields: ['name'] });
  }
  return createNew(d, actor, input);
}

/** An engine network that becomes one of Kade's, as it is. */
async function takeOver(d: NetworksDeps, actor: Actor, name: string, existing: NetworkSummary | undefined): Promise<Created> {
  if (!existing) throw notFound('network', name);
  if (isKade(d, name)) throw new AppError('name_taken', `network '${name}' is Kade's already`, { params: { name }, fields: ['name'] });
  const s = existing.subnets[0];
  d.repo.put({
    name,
    driver: existing.driver === 'macvlan' ? 'macvlan' : 'bridge',
    subnet: s?.subnet ?? null,
    gateway: s?.gateway ?? null,
    range: s?.range ?? null,
    iface: existing.parent,
    created_at: d.clock().toISOString(),
  });
  addAppNetwork(d, name);
  d.events.emit({ type: 'network.taken_over', actor, source: 'networks', target: name, status: 'ok' });
  const containers = await d.engine.listContainers();
  return { network: present(d, name, kindOf(d, name), existing, d.repo.get(name), containers), warnings: [] };
}

/** A new network from the plan the user typed, refused when the review finds an error. */
async function createNew(d: NetworksDeps, actor: Actor, input: Exclude<NetworkCreateT, { take_over: true }>): Promise<Created> {
  const { name } = input;
  const r = await review(d, input);
  const first = r.errors[0];
  if (first) {
    throw new AppError('network_invalid', r.errors.map((e) => e.message).join(' '), {
      params: { name, code: first.code, ...first.params },
      fields: [fieldOf(first.code)],
    });
  }
  const iface = input.interface?.trim() || null;
  const def: NetworkDef = {
    name,
    driver: iface ? 'macvlan' : 'bridge',
    subnet: r.normalised.subnet,
    gateway: input.gateway?.trim() || null,
    range: r.normalised.range,
    iface,
    created_at: d.clock().toISOString(),
  };
  await createFromDef(d, def);
  addAppNetwork(d, name);
  d.events.emit({ type: 'network.created', actor, source: 'networks', target: name, status: 'ok', detail: { subnet: def.subnet ?? '', driver: def.driver } });
  const [after, containers] = await Promise.all([d.engine.listNetworks(), d.engine.listContainers()]);
  const network = present(
    d,
    name,
    kindOf(d, name),
    after.find((n) => n.name === name),
    def,
    containers,
  );
  return { network, warnings: r.warnings };
}

/** The engine's network from a plan, stored. */
async function createFromDef(d: NetworksDeps, def: NetworkDef): Promise<void> {
  const { name } = def;
  await d.engine.createNetwork({
    name,
    driver: def.driver,
    subnet: def.subnet,
    gateway: def.gateway,
    range: def.range,
    parent: def.iface,
    labels: labels(d, name),
  });
  d.repo.put(def);
}

function addAppNetwork(d: NetworksDeps, name: string): void {
  const k = kadeNames(d);
  if (name !== k.shared) d.settings.setAppNetworks([...k.app, name]);
}

async function remove(d: NetworksDeps, actor: Actor, name: string): Promise<void> {
  requireRole(actor, 'admin', 'deleting a network');
  const k = kadeNames(d);
  const nets = await d.engine.listNetworks();
  const net = nets.find((n) => n.name === name);
  if (!isKade(d, name) && !net) throw notFound('network', name);
  const containers = (await d.engine.listContainers()).filter((c) => c.networks && Object.hasOwn(c.networks, name));
  const stacks = [...new Set([...d.stacksOn(name), ...containers.map((c) => (c.project ? (d.stackOfProject(c.project) ?? c.name) : c.name))])].sort();
  if (stacks.length > 0) {
    throw new AppError('network_in_use', `network '${name}' is in use by ${stacks.join(', ')}: take them off it first`, {
      params: { name, stacks: stacks.join(', ') },
    });
  }
  if (net) await d.engine.removeNetwork(name);
  d.repo.remove(name);
  d.pool.release(poolOwner(name));
  if (name !== k.shared && k.app.includes(name)) d.settings.setAppNetworks(k.app.filter((n) => n !== name));
  d.events.emit({ type: 'network.deleted', actor, source: 'networks', target: name, status: 'ok' });
}

/**
 * Makes sure the engine has a network of Kade's before an app joins it: from its stored plan, or (a name
 * only given in the settings) as a bridge with a block of Kade's own pool, stored so it stays the same.
 */
async function ensure(d: NetworksDeps, name: string): Promise<void> {
  if (!isKade(d, name)) throw notFound('network', name);
  const nets = await d.engine.listNetworks();
  if (nets.some((n) => n.name === name)) return;
  let def = d.repo.get(name);
  if (!def || (!def.subnet && def.driver === 'bridge')) {
    const { net } = await d.pool.allocate(poolOwner(name), ['net']);
    def = { name, driver: 'bridge', subnet: net ?? null, gateway: null, range: null, iface: null, created_at: d.clock().toISOString() };
  }
  await createFromDef(d, def);
}

type Plan = { subnet: string | null; range: string | null; gateway: string | null };

/** The subnet of a network of Kade's as the engine has it (or as planned); null when it has none yet. */
async function subnetOf(d: NetworksDeps, name: string): Promise<Plan> {
  const net = (await d.engine.listNetworks()).find((n) => n.name === name);
  const def = d.repo.get(name);
  const s = net?.subnets[0];
  return { subnet: s?.subnet ?? def?.subnet ?? null, range: s?.range ?? def?.range ?? null, gateway: s?.gateway ?? def?.gateway ?? null };
}

/** GET /api/networks/<n>/ip-check: subnet, range, gateway, the engine's allocations and the host's neighbours. */
async function ipCheck(d: NetworksDeps, actor: Actor, name: string, ip: string): Promise<IpCheckT> {
  requireRole(actor, 'operator', 'checking an address');
  const nets = await d.engine.listNetworks();
  const net = nets.find((n) => n.name === name);
  if (!net && !isKade(d, name)) throw notFound('network', name);
  const plan = await subnetOf(d, name);
  const wanted = ip.trim();
  const n = parseIPv4(wanted);
  const early = (p: NetworkProblemT): IpCheckT => ({ ip: wanted, free: false, reasons: [p], proposal: null, host_inspected: false });
  if (n === null) return early(problem('invalid_ip', `'${wanted}' is not an IPv4 address such as 192.168.1.20`, { ip: wanted }));
  if (!plan.subnet) return early(problem('no_subnet', `network '${name}' has no subnet yet, so no address can be chosen on it`, { network: name }));
  const [containers, tables] = await Promise.all([d.engine.listContainers(), hostTables(d)]);
  const used = engineAddresses(containers, name);
  const arp = neighboursIn(tables.ok ? parseArp(tables.tables.arp) : [], plan.subnet);
  const reasons = [...addressProblems(wanted, n, plan), ...takenProblems(wanted, used.get(n), arp.get(n))];
  const taken = new Set<number>([...used.keys(), ...arp.keys()]);
  const proposal = reasons.length === 0 ? null : proposeFree({ subnet: plan.subnet, range: plan.range, gateway: plan.gateway, taken, near: n }).ip;
  return {
    ip: wanted,
    free: reasons.length === 0,
    reasons,
    proposal,
    host_inspected: tables.ok,
    ...(tables.ok ? {} : { note: `The host's neighbour (ARP) table could not be read (${tables.message}): a device on the LAN may still hold this address.` }),
  };
}

/** The addresses the engine gave containers on a network, each with its container's name. */
function engineAddresses(containers: ContainerSummary[], network: string): Map<number, string> {
  const used = new Map<number, string>();
  for (const c of containers) {
    const at = c.networks?.[network];
    const v = at ? parseIPv4(at) : null;
    if (v !== null) used.set(v, c.name);
  }
  return used;
}

/** The host's neighbours inside a subnet, by address. */
function neighboursIn(neighbours: Neighbour[], subnet: string): Map<number, Neighbour> {
  const arp = new Map<number, Neighbour>();
  for (const nb of neighbours) {
    const v = parseIPv4(nb.ip);
    if (v !== null && contains(subnet, nb.ip)) arp.set(v, nb);
  }
  return arp;
}

/** Who holds an address already: a container, else a device the host's neighbour table knows. */
function takenProblems(wanted: string, holder: string | undefined, nb: Neighbour | undefined): NetworkProblemT[] {
  if (holder) return [problem('in_use_engine', `${wanted} is taken by container ${holder}`, { ip: wanted, container: holder })];
  if (!nb) return [];
  return [
    problem('in_use_host_arp', `${wanted} answers on the host's network (device ${nb.mac} on ${nb.iface}), probably a device that got it by DHCP`, {
      ip: wanted,
      mac: nb.mac,
      iface: nb.iface,
    }),
  ];
}

function labels(d: NetworksDeps, name: string): Record<string, string> {
  return { [NETWORK_LABEL]: name, ...d.labels };
}

/** The pool reservation of a shared network Kade created from its own pool. */
const poolOwner = (network: string) => `network:${network}`;

/** Where an address lies against the plan: outside, reserved or the gateway. */
export function addressProblems(ip: string, n: number, plan: Plan): NetworkProblemT[] {
  const out: NetworkProblemT[] = [];
  if (!plan.subnet) return out;
  const sub = parseCidr(plan.subnet);
  if (!sub || !contains(plan.subnet, ip)) {
    out.push(problem('outside_subnet', `${ip} lies outside the subnet ${plan.subnet}`, { ip, subnet: plan.subnet }));
    return out;
  }
  const size = 2 ** (32 - sub.prefix);
  const base = normaliseCidr(plan.subnet)?.base ?? sub.ip;
  if (size > 2 && n === base) out.push(problem('network_address', `${ip} is the address of the network itself`, { ip }));
  if (size > 2 && n === base + size - 1) out.push(problem('broadcast_address', `${ip} is the broadcast address of ${plan.subnet}`, { ip }));
  if (plan.gateway && parseIPv4(plan.gateway) === n) out.push(problem('gateway', `${ip} is the gateway of the network`, { ip }));
  if (plan.range && !contains(plan.range, ip))
    out.push(problem('outside_range', `${ip} lies outside the range ${plan.range} the network hands out`, { ip, range: plan.range }));
  else if (plan.range && normaliseCidr(plan.range)?.base === n && n !== base) {
    out.push(problem('range_first', `${ip} is the first address of the range ${plan.range}, which the engine keeps for itself`, { ip, range: plan.range }));
  }
  return out;
}

function rangeOrRefuse(from: string, to: string) {
  for (const [field, v] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (parseIPv4(v.trim()) === null) {
      throw new AppError('validation', `${field}: '${v}' is not an IPv4 address such as 192.168.1.20`, { params: { field }, fields: [field] });
    }
  }
  const r = rangeBlocks(from.trim(), to.trim());
  if (!r) throw new AppError('validation', `'${from}' to '${to}' is not a range of IPv4 addresses`, { fields: ['from', 'to'] });
  return r;
}

const clean = (i: ReviewInput) => ({
  ...(i.subnet?.trim() ? { subnet: i.subnet.trim() } : {}),
  ...(i.gateway?.trim() ? { gateway: i.gateway.trim() } : {}),
  ...(i.range?.trim() ? { range: i.range.trim() } : {}),
  ...(i.interface?.trim() ? { interface: i.interface.trim() } : {}),
});

function fieldOf(code: string): string {
  if (code.startsWith('subnet') || code.startsWith('overlaps')) return 'subnet';
  if (code.startsWith('range')) return 'range';
  if (code.startsWith('gateway')) return 'gateway';
  if (code.startsWith('interface')) return 'interface';
  return 'subnet';
}

export type NetworksService = ReturnType<typeof createNetworksService>;
