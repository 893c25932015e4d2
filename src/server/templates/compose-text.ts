/**
 * Values compose reads as text, written as text. A placeholder that is a whole scalar of a number, port or yes/no
 * field becomes that number or boolean (render.ts), and a store's compose may write `true` or `512` itself; compose
 * v2 reads those places as strings anyway, compose v1 refuses a boolean there (and a number in a command list or
 * `user`). Written as text, both read the file alike.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A service's maps and lists whose values compose reads as strings (null keeps its meaning: from the environment). */
const SERVICE_TEXT = ['environment', 'labels', 'annotations', 'extra_hosts', 'sysctls', 'command', 'entrypoint', 'dns', 'dns_search'];
/** A service's keys that take one string. */
const SERVICE_STRINGS = ['image', 'user', 'hostname', 'domainname', 'working_dir', 'container_name', 'mac_address', 'stop_signal'];
/** Top-level networks' and volumes' maps of text. */
const RESOURCE_TEXT = ['labels', 'driver_opts'];

const asText = (v: unknown): unknown => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v);

function textValues(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(asText);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asText(x)]));
  return asText(v);
}

function serviceText(svc: Obj): void {
  for (const key of SERVICE_TEXT) if (key in svc) svc[key] = textValues(svc[key]);
  for (const key of SERVICE_STRINGS) if (key in svc) svc[key] = asText(svc[key]);
  if (isObj(svc.healthcheck) && Array.isArray(svc.healthcheck.test)) svc.healthcheck.test = textValues(svc.healthcheck.test);
  if (isObj(svc.build) && 'args' in svc.build) svc.build.args = textValues(svc.build.args);
}

/** Every place of a rendered compose document where compose wants text gets text (changed in place). */
export function composeText(doc: Obj): void {
  if (isObj(doc.services)) for (const svc of Object.values(doc.services)) if (isObj(svc)) serviceText(svc);
  for (const top of ['networks', 'volumes']) {
    const defs = doc[top];
    if (!isObj(defs)) continue;
    for (const d of Object.values(defs)) {
      if (!isObj(d)) continue;
      for (const key of RESOURCE_TEXT) if (key in d) d[key] = textValues(d[key]);
    }
  }
}
