import type { ContainerEntryT } from '../../shared/api.ts';

/** Published ports once each (the engine lists IPv4 and IPv6 separately), then the unpublished ones. */
export function portText(ports: ContainerEntryT['ports']): string {
  const seen = new Set<string>();
  for (const p of ports) {
    const host = p.host_port === null ? '' : `${p.host_ip && p.host_ip !== '0.0.0.0' && p.host_ip !== '::' ? `${p.host_ip}:` : ''}${p.host_port}→`;
    seen.add(`${host}${p.container_port}/${p.protocol}`);
  }
  return [...seen].join(', ');
}
