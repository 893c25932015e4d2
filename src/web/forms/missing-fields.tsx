import type { TemplateFileT } from '../../shared/template.ts';
import { AlertBox } from '../components/error-message.tsx';
import { getLang, t } from '../i18n.ts';
import { allFields, textIn } from './install-model.ts';

/** The summary of the template's required fields still empty, by their labels; nothing when there are none. */
export function MissingFields({ template, missing }: { template: TemplateFileT; missing: string[] }) {
  if (missing.length === 0) return null;
  const labelOf = (fid: string) => {
    const f = allFields(template).find((x) => x.id === fid);
    return f ? textIn(f.label, getLang()) : fid;
  };
  return (
    <AlertBox>
      <p>{t('install.missing', { fields: missing.map(labelOf).join(', ') })}</p>
    </AlertBox>
  );
}
