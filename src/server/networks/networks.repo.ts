import type { Db } from '../db/db.ts';

/** The address plan Kade created a shared network with. */
export interface NetworkDef {
  name: string;
  driver: 'bridge' | 'macvlan';
  subnet: string | null;
  gateway: string | null;
  range: string | null;
  iface: string | null;
  created_at: string;
}

export interface NetworksRepo {
  all(): NetworkDef[];
  get(name: string): NetworkDef | null;
  put(def: NetworkDef): void;
  remove(name: string): void;
}

interface Row {
  name: string;
  driver: string;
  subnet: string | null;
  gateway: string | null;
  ip_range: string | null;
  iface: string | null;
  created_at: string;
}

const toDef = (r: Row): NetworkDef => ({
  name: r.name,
  driver: r.driver === 'macvlan' ? 'macvlan' : 'bridge',
  subnet: r.subnet,
  gateway: r.gateway,
  range: r.ip_range,
  iface: r.iface,
  created_at: r.created_at,
});

export function createNetworksRepo(db: Db): NetworksRepo {
  const all = db.prepare<[], Row>('SELECT * FROM networks ORDER BY name');
  const one = db.prepare<[string], Row>('SELECT * FROM networks WHERE name = ?');
  const put = db.prepare(
    `INSERT INTO networks (name, driver, subnet, gateway, ip_range, iface, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(name) DO UPDATE SET driver = excluded.driver, subnet = excluded.subnet, gateway = excluded.gateway,
       ip_range = excluded.ip_range, iface = excluded.iface`,
  );
  const del = db.prepare('DELETE FROM networks WHERE name = ?');
  return {
    all: () => all.all().map(toDef),
    get: (name) => {
      const r = one.get(name);
      return r ? toDef(r) : null;
    },
    put: (d) => void put.run(d.name, d.driver, d.subnet, d.gateway, d.range, d.iface, d.created_at),
    remove: (name) => void del.run(name),
  };
}
