import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One `t(key, params)` call of the interface, as the type checker sees it. */
export interface TCall {
  /** `src/web/x.tsx:12` */
  where: string;
  /** `src/web/x.tsx t(keyText)`, stable when lines move; used to list known exceptions. */
  id: string;
  /** The keys the call can use (a literal, or a union the checker computed); null when it can be any key. */
  keys: string[] | null;
  /** For a key built as `prefix${…}` elsewhere (a variable narrowed by isMessageKey): the prefix. */
  family: string | null;
  /** Names of the params passed; [] without params; null when they are not known statically. */
  params: string[] | null;
}

export interface Scan {
  calls: TCall[];
  /** String literals put where a MessageKey is expected (tables, props) rather than straight into t(). */
  storedKeys: { where: string; key: string }[];
}

const ROOT = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && name !== 'vite.config.ts' ? [p] : [];
  });
}

function program(files: string[]): ts.Program {
  const cfg = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(cfg.config, ts.sys, ROOT);
  return ts.createProgram(files, { ...parsed.options, noEmit: true });
}

const rel = (file: string) => relative(ROOT, file).split(sep).join('/');

/** The string literal members of a type; null when some member is not one (plain `string`). */
function literals(type: ts.Type): string[] | null {
  const members = type.isUnion() ? type.types : [type];
  const out: string[] = [];
  for (const m of members) {
    if (m.isStringLiteral()) out.push(m.value);
    else if (!(m.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined))) return null;
  }
  return out;
}

/** Whether a call's callee is the `t` exported by src/web/i18n.ts (not some local `t`). */
function isTranslate(checker: ts.TypeChecker, call: ts.CallExpression): boolean {
  if (!ts.isIdentifier(call.expression) || call.expression.text !== 't') return false;
  let sym = checker.getSymbolAtLocation(call.expression);
  if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  const decl = sym?.declarations?.[0];
  return decl !== undefined && rel(decl.getSourceFile().fileName) === 'src/web/i18n.ts';
}

/** `audit.action.` for a key variable initialised as `audit.action.${x}`. */
function familyOf(checker: ts.TypeChecker, arg: ts.Expression): string | null {
  if (ts.isTemplateExpression(arg)) return arg.head.text;
  if (!ts.isIdentifier(arg)) return null;
  const decl = checker.getSymbolAtLocation(arg)?.valueDeclaration;
  if (decl && ts.isVariableDeclaration(decl) && decl.initializer && ts.isTemplateExpression(decl.initializer)) return decl.initializer.head.text;
  return null;
}

function paramsOf(checker: ts.TypeChecker, arg: ts.Expression | undefined): string[] | null {
  if (!arg) return [];
  const type = checker.getTypeAtLocation(arg);
  // A Record<string, …> (server-supplied params) has no fixed names to compare.
  if (checker.getIndexInfoOfType(type, ts.IndexKind.String)) return null;
  return checker
    .getPropertiesOfType(type)
    .map((p) => p.name)
    .sort();
}

/** Finds every t() call and every stored MessageKey literal in the interface sources. */
export function scanTranslations(allKeys: readonly string[], dir = join(ROOT, 'src/web')): Scan {
  const files = sources(dir);
  const prog = program(files);
  const checker = prog.getTypeChecker();
  const everyKey = allKeys.length;
  const scan: Scan = { calls: [], storedKeys: [] };
  const tArgs = new Set<ts.Node>();

  const where = (n: ts.Node) => `${rel(n.getSourceFile().fileName)}:${n.getSourceFile().getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const visitCall = (call: ts.CallExpression) => {
    const [keyArg, paramArg] = call.arguments;
    if (!keyArg) return;
    // Literals anywhere in the key argument (`c ? 'a.x' : 'a.y'`) are checked through the call itself.
    const mark = (n: ts.Node): void => {
      tArgs.add(n);
      ts.forEachChild(n, mark);
    };
    mark(keyArg);
    const keys = ts.isStringLiteralLike(keyArg) ? [keyArg.text] : literals(checker.getTypeAtLocation(keyArg));
    const bounded = keys !== null && keys.length < everyKey ? keys : null;
    scan.calls.push({
      where: where(call),
      id: `${rel(call.getSourceFile().fileName)} t(${keyArg.getText()})`,
      keys: bounded,
      family: bounded ? null : familyOf(checker, keyArg),
      params: paramsOf(checker, paramArg),
    });
  };
  const visitLiteral = (lit: ts.StringLiteral) => {
    if (tArgs.has(lit)) return;
    const ctx = checker.getContextualType(lit);
    const keys = ctx ? literals(ctx) : null;
    if (keys !== null && keys.length >= everyKey) scan.storedKeys.push({ where: where(lit), key: lit.text });
  };

  for (const sf of prog.getSourceFiles()) {
    if (!files.includes(resolve(sf.fileName))) continue;
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && isTranslate(checker, n)) visitCall(n);
      else if (ts.isStringLiteral(n)) visitLiteral(n);
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return scan;
}

/** `{name}` tokens of a message, as t() fills them. */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string))].sort();
}

const same = (a: readonly string[], b: readonly string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/** Calls with known keys whose params differ from the placeholders of the table's text, or whose key is unknown. */
export function keyMismatches(calls: readonly TCall[], table: Record<string, string>): string[] {
  const wrong: string[] = [];
  for (const call of calls) {
    if (!call.keys || !call.params) continue;
    for (const key of call.keys) {
      const text = table[key];
      if (text === undefined) wrong.push(`${call.where}: unknown key ${key}`);
      else if (!same(placeholders(text), call.params)) wrong.push(`${call.where}: ${key} needs {${placeholders(text)}} but gets {${call.params}}`);
    }
  }
  return wrong;
}

/** Calls with a key family (`audit.action.${x}`): the family must exist, and each member fit the params. */
export function familyMismatches(calls: readonly TCall[], table: Record<string, string>): string[] {
  const wrong: string[] = [];
  for (const call of calls) {
    const prefix = call.keys ? null : call.family;
    if (prefix === null) continue;
    const family = Object.keys(table).filter((k) => k.startsWith(prefix));
    if (family.length === 0) wrong.push(`${call.where}: no key starts with ${prefix}`);
    if (!call.params) continue;
    for (const key of family) {
      const want = placeholders(table[key] ?? '');
      if (!same(want, call.params)) wrong.push(`${call.where}: ${key} needs {${want}} but gets {${call.params}}`);
    }
  }
  return wrong;
}
