import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const files = execSync("git ls-files 'src/**/*.ts' 'src/**/*.tsx'", { encoding: 'utf8' })
  .trim()
  .split('\n')
  .filter((f) => !f.includes('.test.'));
const out = [];
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true, f.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const visit = (n) => {
    if (ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isMethodDeclaration(n)) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart()).line,
        b = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      const name =
        n.name?.getText?.() ??
        (ts.isVariableDeclaration(n.parent) ? n.parent.name.getText() : ts.isPropertyAssignment(n.parent) ? n.parent.name.getText() : '(anon)');
      out.push([b - a + 1, `${f}:${a + 1} ${name}`]);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
out.sort((x, y) => y[0] - x[0]);
const over = out.filter((x) => x[0] > 80);
console.log(`${over.length} functions over 80 lines`);
for (const [n, w] of over.slice(0, Number(process.argv[2] ?? 200))) console.log(n, w);
