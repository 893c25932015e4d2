import type { NetworkProblemT } from '../../shared/networks.ts';
import { isMessageKey, t } from '../i18n.ts';

/**
 * The key of a finding: `netcheck.<code>`, with a variant where one code covers two sentences
 * (an empty subnet, the network or the broadcast address as gateway, the kind of reserved block).
 */
function variantOf(p: NetworkProblemT): string {
  if (p.code === 'subnet_invalid' && p.params.subnet === '') return 'subnet_missing';
  if (p.code === 'gateway_reserved') return `gateway_reserved_${String(p.params.which)}`;
  if (p.code === 'subnet_reserved') return `subnet_reserved_${String(p.params.kind)}`;
  return p.code;
}

/** A finding of the network review or the address check in the user's language; the server's English for a code we do not know. */
export function problemText(p: NetworkProblemT): string {
  const key = `netcheck.${variantOf(p)}`;
  return isMessageKey(key) ? t(key, p.params) : p.message;
}
