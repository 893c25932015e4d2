import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { JobAccepted } from '../../../shared/api.ts';
import {
  ConnectRequest,
  IpCheck,
  IpCheckQuery,
  NetworkCreate,
  NetworkCreated,
  NetworkList,
  NetworkName,
  NetworkReview,
  NetworkReviewRequest,
  RangeBlocks,
  RangeRequest,
} from '../../../shared/networks.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { NameParam, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const NetworkParam = z.object({ n: NetworkName });

const { get, post, delete: del } = routeGroup('networks');
const { post: stacksPost } = routeGroup('stacks');

const list = get('/api/networks', 'viewer', { 200: NetworkList }).summary(
  "Kade's shared networks (SHARED_NETWORK: kind shared; APP_NETWORKS: kind app) with subnet, gateway, range, interface and members, the engine's other networks (kind engine, can be taken over), and the detected host network",
);
const create = post('/api/networks', 'admin', { body: NetworkCreate, 201: NetworkCreated }).summary(
  'Create a shared network: a bridge, or macvlan on the host interface. Subnet and range are normalised (host bits cleared) and the warnings say what was made of the input; a review with errors is 400 network_invalid. {name, take_over: true} takes over a network the engine has.',
);
const remove = del('/api/networks/{n}', 'admin', { params: NetworkParam, 204: { description: 'deleted' } }).summary(
  'Delete a shared network; refused (409 network_in_use, naming them) while apps use it',
);
const review = post('/api/networks/review', 'operator', { body: NetworkReviewRequest, 200: NetworkReview }).summary(
  'Live assessment while typing: usable addresses, first and last, normalised subnet and range, blocking errors and warnings (code, English message, params for the translation)',
);
const range = post('/api/networks/range', 'operator', { body: RangeRequest, 200: RangeBlocks }).summary(
  "From two addresses: 'ruim', the smallest aligned block holding all of them, and 'krap', the largest aligned block inside them",
);
const ipCheck = get('/api/networks/{n}/ip-check', 'operator', { params: NetworkParam, query: IpCheckQuery, 200: IpCheck }).summary(
  "Whether an address is free on a network: subnet, range, gateway, the engine's allocations and the host's neighbour (ARP) table; proposes a free address (at most sixteen tried)",
);
const connect = stacksPost('/api/stacks/{name}/connect', 'operator', { params: NameParam, body: ConnectRequest, 202: JobAccepted }).summary(
  'Join a shared network ({network, services?, ip?}: all services when services is absent; ip only with one service) or leave it ({network, disconnect: true}). Stored in .svc.json, compose validated, app restarted (job); a refusal puts every file back byte for byte',
);

export function networksRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'networks' | 'stacks'>): void {
  app.openapi(list, async (c) => c.json(await s.networks.list(actorOf(c)), 200));
  app.openapi(create, async (c) => c.json(await s.networks.create(actorOf(c), c.req.valid('json')), 201));
  app.openapi(remove, async (c) => {
    await s.networks.remove(actorOf(c), c.req.valid('param').n);
    return c.body(null, 204);
  });
  app.openapi(review, async (c) => c.json(await s.networks.review(c.req.valid('json')), 200));
  app.openapi(range, (c) => {
    const { from, to } = c.req.valid('json');
    return c.json(s.networks.range(from, to), 200);
  });
  app.openapi(ipCheck, async (c) => c.json(await s.networks.ipCheck(actorOf(c), c.req.valid('param').n, c.req.valid('query').ip), 200));
  app.openapi(connect, async (c) => c.json({ job: await s.stacks.connect(actorOf(c), c.req.valid('param').name, c.req.valid('json')) }, 202));
}
