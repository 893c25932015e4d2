/**
 * Shapes of the shared-network routes (SPEC: Network; API.md: review, range, ip-check) and of connect,
 * shared by the server (validation, OpenAPI) and the interface (types).
 */
import { z } from 'zod';
import { NETWORK_NAME_PATTERN } from './names.ts';

export const NetworkName = z.string().regex(NETWORK_NAME_PATTERN, 'letters, digits, _ . and -, starting with a letter or digit, at most 63');

/** One finding of a review or an address check: `code` is stable (the interface translates it with `params`), `message` plain English. */
export const NetworkProblem = z.object({
  code: z.string(),
  message: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
});
export type NetworkProblemT = z.infer<typeof NetworkProblem>;

const Text = z.string().max(64);

/** POST /api/networks/review: what the user typed so far (every field may be empty). */
export const NetworkReviewRequest = z.object({
  subnet: Text.optional(),
  gateway: Text.optional(),
  range: Text.optional(),
  interface: Text.optional(),
});

export const NetworkReview = z.object({
  ok: z.boolean(),
  usable: z.number().int(),
  first: z.string().nullable(),
  last: z.string().nullable(),
  normalised: z.object({ subnet: z.string().nullable(), range: z.string().nullable() }),
  errors: z.array(NetworkProblem),
  warnings: z.array(NetworkProblem),
});
export type NetworkReviewT = z.infer<typeof NetworkReview>;

/** POST /api/networks/range */
export const RangeRequest = z.object({ from: Text, to: Text });
export const RangeBlocks = z.object({
  ruim: z.object({ cidr: z.string(), addresses: z.number().int(), gained: z.number().int() }),
  krap: z.object({ cidr: z.string(), addresses: z.number().int(), missing: z.number().int() }),
});

/** GET /api/networks/{n}/ip-check?ip=A */
export const IpCheckQuery = z.object({ ip: Text });
export const IpCheck = z.object({
  ip: z.string(),
  free: z.boolean(),
  reasons: z.array(NetworkProblem),
  proposal: z.string().nullable(),
  /** False when the host's neighbour table could not be read: `free` then holds for the engine only, and `note` says why. */
  host_inspected: z.boolean(),
  note: z.string().optional(),
});
export type IpCheckT = z.infer<typeof IpCheck>;

/** A container on a network: its app (compose project managed by Kade) when it has one. */
export const NetworkMember = z.object({
  stack: z.string().nullable(),
  container: z.string(),
  service: z.string().nullable(),
  ip: z.string().nullable(),
});

/**
 * One network as the Networks screen lists it. kind `shared` is SHARED_NETWORK, `app` an APP_NETWORKS entry,
 * `engine` a network that exists on the engine but is not Kade's (it can be taken over). `exists` is false
 * for a network of Kade's that the engine does not have yet: it is created when the first app joins it.
 */
export const NetworkView = z.object({
  name: z.string(),
  kind: z.enum(['shared', 'app', 'engine']),
  driver: z.string(),
  exists: z.boolean(),
  subnet: z.string().nullable(),
  gateway: z.string().nullable(),
  range: z.string().nullable(),
  interface: z.string().nullable(),
  members: z.array(NetworkMember),
});
export type NetworkViewT = z.infer<typeof NetworkView>;

/** The host's own network, read from its routing table: offered at the top of the create form. */
export const HostNetwork = z.object({
  interface: z.string(),
  address: z.string().nullable(),
  subnet: z.string(),
  gateway: z.string().nullable(),
  suggested_range: z.string().nullable(),
  /** A Kade network already uses this interface or subnet: the form says "already added" and still shows it. */
  added: z.boolean(),
});
export type HostNetworkT = z.infer<typeof HostNetwork>;

export const NetworkList = z.object({
  networks: z.array(NetworkView),
  host: HostNetwork.nullable(),
  /** Why the host network could not be read (no probe image, engine down); null when it was read. */
  host_error: z.string().nullable(),
});
export type NetworkListT = z.infer<typeof NetworkList>;

/**
 * POST /api/networks: a new network (a bridge, or macvlan on `interface`), or `take_over` of a network the
 * engine has. A review with errors answers 400 `network_invalid` (detail lists them, params.code is the first).
 */
export const NetworkCreate = z.union([
  z.object({ name: NetworkName, take_over: z.literal(true) }).strict(),
  z
    .object({
      name: NetworkName,
      subnet: Text.optional(),
      gateway: Text.optional(),
      range: Text.optional(),
      interface: Text.optional(),
    })
    .strict(),
]);
export type NetworkCreateT = z.infer<typeof NetworkCreate>;
export const NetworkCreated = z.object({ network: NetworkView, warnings: z.array(NetworkProblem) });

/**
 * POST /api/stacks/{name}/connect: join `network` with `services` (all when absent), optionally with one
 * service's own address; or leave it with `disconnect`. Answered 202 with the job.
 */
export const ConnectRequest = z.union([
  z.object({ network: NetworkName, disconnect: z.literal(true) }).strict(),
  z
    .object({
      network: NetworkName,
      services: z.array(z.string().min(1).max(128)).min(1).max(50).optional(),
      ip: Text.optional(),
    })
    .strict(),
]);
export type ConnectRequestT = z.infer<typeof ConnectRequest>;

/** A service's membership of a shared network, in the app's config. */
export const ServiceNetwork = z.object({ network: z.string(), ip: z.string().nullable() });
