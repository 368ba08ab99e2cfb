#!/usr/bin/env node
// Follows the command context (`ctx`), or the ports it is to a flow (`ports`: a Pick of it, a family's
// `…Ports`, or `FlowPorts`), through the calls from one function: every function that receives it is a
// stop; a call into runtime/ from below is a call back into the context (a port's call is not followed),
// and a call to a higher layer of scripts/layers.mjs is a climb. A measuring tool (CONTRIBUTING.md), not
// part of the build.
//
//   node scripts/ctx-trace.mjs resumeUnfinishedApplies runKeep
import ts from 'typescript';
import { relative, resolve } from 'node:path';
import { layerOf } from './layers.mjs';

const root = resolve(import.meta.dirname, '..');
const configFile = ts.readConfigFile(resolve(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const program = ts.createProgram(
  parsed.fileNames.filter((name) => name.includes('/src/')),
  parsed.options,
);
const checker = program.getTypeChecker();
const inSrc = (file) => relative(resolve(root, 'src'), file.fileName);

function functionNamed(name) {
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(resolve(root, 'src'))) continue;
    let found;
    file.forEachChild(function visit(node) {
      if (found) return;
      if (ts.isFunctionDeclaration(node) && node.name?.text === name) found = node;
      else node.forEachChild(visit);
    });
    if (found) return found;
  }
  throw new Error(`no function ${name} in src/`);
}

const isContextType = (typeNode) =>
  typeNode !== undefined && /\bCommandContext\b|\bCtx\b|Ports\b/.test(typeNode.getText());
function contextNames(fn) {
  const names = new Set();
  for (const parameter of fn.parameters ?? []) {
    if (
      ts.isIdentifier(parameter.name) &&
      (parameter.name.text === 'ctx' || parameter.name.text === 'ports' || isContextType(parameter.type))
    )
      names.add(parameter.name.text);
  }
  const owner = fn.parent;
  if (
    (ts.isMethodDeclaration(fn) || ts.isGetAccessor(fn)) &&
    owner &&
    ts.isClassDeclaration(owner) &&
    owner.name?.text === 'CommandContext'
  )
    names.add('this');
  return names;
}

const rootOf = (expression) => {
  let node = expression;
  while (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isNonNullExpression(node))
    node = node.expression;
  return node;
};
const nameOf = (node) =>
  node.kind === ts.SyntaxKind.ThisKeyword ? 'this' : ts.isIdentifier(node) ? node.text : undefined;
const isContextValue = (node) =>
  node.kind !== ts.SyntaxKind.ThisKeyword &&
  checker.getTypeAtLocation(node).getSymbol()?.getName() === 'CommandContext';
const carriesContext = (argument, names) => {
  if (names.has(nameOf(argument)) || isContextValue(argument)) return true;
  if (ts.isObjectLiteralExpression(argument)) {
    return argument.properties.some(
      (property) =>
        (ts.isShorthandPropertyAssignment(property) && names.has(property.name.text)) ||
        (ts.isSpreadAssignment(property) && names.has(nameOf(property.expression))) ||
        (ts.isPropertyAssignment(property) && names.has(nameOf(property.initializer))),
    );
  }
  return false;
};

function declarationOf(callee) {
  const at = ts.isPropertyAccessExpression(callee) ? callee.name : callee;
  let symbol = checker.getSymbolAtLocation(at);
  if (!symbol) return undefined;
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  for (const declaration of symbol.declarations ?? []) {
    if (!declaration.getSourceFile().fileName.startsWith(resolve(root, 'src'))) continue;
    if (
      (ts.isFunctionDeclaration(declaration) || ts.isMethodDeclaration(declaration) || ts.isGetAccessor(declaration)) &&
      declaration.body
    )
      return declaration;
    if (
      (ts.isVariableDeclaration(declaration) || ts.isPropertyDeclaration(declaration)) &&
      declaration.initializer &&
      (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))
    )
      return declaration.initializer;
  }
  return undefined;
}

const label = (fn) => {
  const named = fn.name ?? fn.parent?.name;
  const owner = ts.isMethodDeclaration(fn) || ts.isGetAccessor(fn) ? `${fn.parent.name?.text ?? '?'}.` : '';
  return `${inSrc(fn.getSourceFile())}:${owner}${named?.getText() ?? '(anonymous)'}`;
};

export function trace(start) {
  const stops = new Set();
  const calls = new Set();
  const climbs = [];
  const intoContext = [];
  const pending = [functionNamed(start)];
  const seen = new Set();
  while (pending.length > 0) {
    const fn = pending.pop();
    if (seen.has(fn)) continue;
    seen.add(fn);
    stops.add(label(fn));
    const names = contextNames(fn);
    const from = layerOf(inSrc(fn.getSourceFile()));
    const follow = (callee) => {
      const target = declarationOf(callee);
      if (!target || target === fn) return;
      const edge = `${label(fn)} -> ${label(target)}`;
      if (calls.has(edge)) return;
      calls.add(edge);
      const to = layerOf(inSrc(target.getSourceFile()));
      if (to.rank < from.rank) climbs.push(`${edge}  (${from.name} up to ${to.name})`);
      // The context is built by the front: a call from below into one of its methods reaches back up to it.
      if (to.name === 'runtime' && from.name !== 'runtime') intoContext.push(edge);
      pending.push(target);
    };
    fn.body?.forEachChild(function visit(node) {
      if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.expression) {
        const passes = (node.arguments ?? []).some((argument) => carriesContext(argument, names));
        const onContext =
          ts.isPropertyAccessExpression(node.expression) &&
          (names.has(nameOf(rootOf(node.expression))) || isContextValue(rootOf(node.expression)));
        // A flow holds the context as its ports (a Pick of it): a port's call is not followed, as before.
        const viaPorts =
          onContext &&
          !isContextValue(rootOf(node.expression)) &&
          declarationOf(node.expression)?.parent?.name?.text === 'CommandContext';
        if ((passes || onContext) && !viaPorts) follow(node.expression);
      }
      node.forEachChild(visit);
    });
  }
  return { start, stops: stops.size, calls: calls.size, climbs, intoContext };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const verbose = process.argv.includes('--verbose');
  for (const start of process.argv.slice(2).filter((word) => !word.startsWith('--'))) {
    const result = trace(start);
    console.log(
      `${start}: ${result.stops} stops, ${result.calls} calls followed, ${result.climbs.length} imports-order climbs, ${result.intoContext.length} calls back into the context (runtime/)`,
    );
    if (verbose) for (const climb of [...result.climbs, ...result.intoContext]) console.log(`  ${climb}`);
  }
}
