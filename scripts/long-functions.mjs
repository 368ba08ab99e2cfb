#!/usr/bin/env node
// Lists the functions of src/ longer than a bound (80 lines unless given): declarations, methods,
// constructors, accessors, function expressions and arrow functions, each measured from its first
// line to its last (a nested function counts inside its parent and again on its own). Read with the
// TypeScript compiler's parser, as scripts/ctx-trace.mjs reads src/, so a brace in a string or a
// template does not fool it. A measuring tool (CONTRIBUTING.md, "The layer rules"),
// not part of the build or the tests.
//
//   node scripts/long-functions.mjs          # the functions over 80 lines, longest first, and their count
//   node scripts/long-functions.mjs 60       # over another bound
import ts from 'typescript';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');
const bound = Number(process.argv[2] ?? 80);
if (!Number.isInteger(bound) || bound < 1)
  throw new Error(`usage: node scripts/long-functions.mjs [lines], not ${process.argv[2]}`);

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** What a reader would call the function: its own name, the variable or property it is assigned to, else the call it is handed to. */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return `${node.parent.name?.text ?? 'class'}.constructor`;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

export function longFunctions(minimum = bound) {
  const found = [];
  for (const path of sourceFiles(src)) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const visit = (node) => {
      if (FUNCTION_KINDS.has(node.kind) && node.body) {
        const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
        const last = file.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
        const lines = last - first + 1;
        if (lines > minimum) found.push({ file: relative(src, path), line: first, name: nameOf(node), lines });
      }
      node.forEachChild(visit);
    };
    visit(file);
  }
  return found.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = longFunctions();
  for (const { file, line, name, lines } of found)
    console.log(`${String(lines).padStart(4)}  ${file}:${line}  ${name}`);
  console.log(`${found.length} functions over ${bound} lines in src/.`);
}
