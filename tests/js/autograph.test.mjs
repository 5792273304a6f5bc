// tl.autograph: JavaScript `if`, `while`, `for`, `&&`, `||`, `!` and `?:` over tensors converted into runtime calls
// that stay plain JavaScript for plain values, read eager tensors, and build tl.cond / tl.whileLoop while
// tl.function traces. Every construct runs eagerly and traced with the same results; the traced graphs hold cond /
// while_loop nodes; gradients match the hand-written control flow; ordinary JavaScript behaves identically
// converted; every error names the construct, the line and the column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const tl = await loadTracelab();
const live = () => tl.memory().numTensors;

/** The functions `names` of converted `source` (filename sample.mjs), with `scope` as extra free variables. */
function compile(source, names, scope = {}) {
  const code = tl.autograph.convert(source, { filename: 'sample.mjs' });
  const keys = Object.keys(scope);
  return new Function('tl', ...keys, `${code}\nreturn { ${names.join(', ')} };`)(tl, ...keys.map((k) => scope[k]));
}

const value = (t) => (Array.isArray(t) ? t.map(value) : t instanceof tl.Tensor ? t.arraySync() : t);

/** [eager, traced] results of fn for each argument list (made by `makeArgs` inside a tidy), and the traced function. */
function eagerAndTraced(fn, argLists, options = {}) {
  const traced = tl.function(fn, options);
  const rows = argLists.map((makeArgs) => tl.tidy(() => {
    const args = makeArgs();
    return [value(fn(...args)), value(traced(...args))];
  }));
  return { traced, rows, graph: traced.concreteFunctions()[0].graph };
}

function assertSame(rows, expected) {
  rows.forEach(([eager, traced], i) => {
    assert.deepEqual(eager, expected[i], `eager result ${i}`);
    assert.deepEqual(traced, expected[i], `traced result ${i}`);
  });
}

test('autograph/convert: each construct becomes a runtime call reached through tl; generators stay as written', () => {
  const source = `
    function all(x, o, xs, more) {
      let s = 0;
      if (x) s = 1; else s = 2;
      while (more(s)) s++;
      do { s--; } while (s);
      for (let i = 0; more(i); i++) s += i;
      for (const v of xs) s += v;
      for (const k in o) { if (k === 'stop') break; s += k.length; }
      if (s < 0 || typeof x === 'string') s = -s;
      return x && s || !x ? s : -s;
    }
    function* numbers() { for (let i = 0; i < 3; i++) { if (i) yield i; } }
    async function later(p) { if (await p) { return [1, 2].map((v) => (v.ok ? v : 0)); } return null; }`;
  const code = tl.autograph.convert(source);
  for (const name of ['ifStmt', 'whileStmt', 'doWhileStmt', 'forOfStmt', 'forInStmt', 'ifExp', 'and', 'or', 'not'])
    assert.match(code, new RegExp(`tl\\.autograph\\.${name}\\(`), name);
  assert.match(code, /"if statement at line 4, column 7"/);
  // A condition that can never be a tensor (a comparison, typeof) keeps JavaScript's own statement.
  assert.match(code, /if \(s < 0 \|\| typeof x === 'string'\) s = -s;/);
  const generator = code.slice(code.indexOf('function* numbers'), code.indexOf('async function'));
  assert.doesNotMatch(generator, /tl\.autograph/);
  assert.match(generator, /if \(i\) yield i;/);
  const asyncPart = code.slice(code.indexOf('async function'));
  assert.match(asyncPart, /if \(await p\)/);                                // the async function is not converted ...
  assert.match(asyncPart, /v => tl\.autograph\.ifExp\(v\.ok/);            // ... a plain function inside it is
  const { all } = compile(source, ['all']);
  const more = (n) => n < 3;
  assert.equal(all(true, { ab: 1, stop: 2, z: 3 }, [5], more), 10);
  assert.throws(() => tl.autograph.convert('function ('), SyntaxError);
  assert.throws(() => tl.autograph.convert('if (', { filename: 'broken.js' }), /broken\.js: Unexpected token/);
});

test('autograph/if: the sign of a tensor, eagerly and traced, is one cond node and one trace', () => {
  const start = live();
  const { sign } = compile(`
    function sign(x) {
      if (x.greater(0)) {
        return tl.scalar(1);
      } else if (x.less(0)) {
        return tl.scalar(-1);
      }
      return tl.scalar(0);
    }`, ['sign']);
  const { traced, rows, graph } = eagerAndTraced(sign, [() => [tl.scalar(3)], () => [tl.scalar(-2)], () => [tl.scalar(0)]]);
  assertSame(rows, [1, -1, 0]);
  assert.equal(traced.tracingCount, 1);
  assert.equal(graph.match(/= cond /g).length, 2);  // the else-if is a cond inside the else branch
  assert.doesNotMatch(graph, /while_loop/);
  traced.dispose();
  assert.equal(live(), start);
});

test('autograph/for + if: the sum of the even numbers below a tensor n is a while_loop holding a cond', () => {
  const { sumOfEven } = compile(`
    function sumOfEven(n) {
      let total = tl.scalar(0);
      for (let i = tl.scalar(0); i.less(n); i = i.add(1)) {
        const half = tl.cast(tl.cast(i.div(2), 'int32'), 'float32');
        if (tl.equal(i, half.mul(2))) total = total.add(i);
      }
      return total;
    }`, ['sumOfEven']);
  const { traced, rows, graph } = eagerAndTraced(sumOfEven, [10, 7, 0].map((n) => () => [tl.scalar(n)]));
  assertSame(rows, [20, 12, 0]);
  assert.equal(traced.tracingCount, 1);
  assert.match(graph, /while_loop[^\n]*\{num_vars=2/);
  assert.match(graph.slice(graph.indexOf('while_loop')), /= cond /);
  traced.dispose();
});

test('autograph/while: a trip count that depends on a tensor (Collatz steps) runs in one traced graph', () => {
  const { collatz } = compile(`
    function collatz(start) {
      let n = start;
      let steps = tl.scalar(0);
      while (n.greater(1)) {
        const half = tl.cast(tl.cast(n.div(2), 'int32'), 'float32');
        n = tl.equal(n, half.mul(2)) ? half : n.mul(3).add(1);
        steps = steps.add(1);
      }
      return steps;
    }`, ['collatz']);
  const { traced, rows, graph } = eagerAndTraced(collatz, [6, 7, 27, 1].map((n) => () => [tl.scalar(n)]));
  assertSame(rows, [8, 16, 111, 0]);
  assert.equal(traced.tracingCount, 1);
  assert.match(graph, /while_loop/);
  const { doubling } = compile(`
    function doubling(x, limit) {
      let rounds = tl.scalar(0);
      do {
        x = x.mul(2);
        rounds = rounds.add(1);
      } while (x.less(limit));
      return [x, rounds];
    }`, ['doubling']);
  const doWhile = eagerAndTraced(doubling, [[1, 10], [20, 10]].map(([x, limit]) => () => [tl.scalar(x), tl.scalar(limit)]));
  assertSame(doWhile.rows, [[16, 4], [40, 1]]);   // the body runs once before the first test
  assert.match(doWhile.graph, /while_loop/);
  traced.dispose();
  doWhile.traced.dispose();
});

test('autograph/fizzbuzz: tl.print in nested tensor ifs inside a tensor while prints the same lines eagerly and traced', () => {
  const { fizzbuzz } = compile(`
    function fizzbuzz(n) {
      const mod = (a, k) => a.sub(tl.cast(tl.cast(a.div(k), 'int32'), 'float32').mul(k));
      let i = tl.scalar(1);
      while (!i.greater(n)) {
        if (tl.equal(mod(i, 15), 0)) tl.print('FizzBuzz');
        else if (tl.equal(mod(i, 3), 0)) tl.print('Fizz');
        else if (tl.equal(mod(i, 5), 0)) tl.print('Buzz');
        else tl.print(i);
        i = i.add(1);
      }
      return i;
    }`, ['fizzbuzz']);
  const lines = [];
  tl.setLogHandler((level, text) => { if (level === 'print') lines.push(text); });
  try {
    const traced = tl.function(fizzbuzz);
    tl.tidy(() => fizzbuzz(tl.scalar(15)));
    const eager = lines.splice(0);
    tl.tidy(() => traced(tl.scalar(15)));
    assert.deepEqual(lines.splice(0), eager);
    assert.deepEqual(eager, ['1.', '2.', 'Fizz', '4.', 'Buzz', 'Fizz', '7.', '8.', 'Fizz', 'Buzz', '11.', 'Fizz', '13.', '14.', 'FizzBuzz']);
    tl.tidy(() => traced(tl.scalar(5)));   // the graph prints on every call, with no retrace
    assert.deepEqual(lines, ['1.', '2.', 'Fizz', '4.', 'Buzz']);
    assert.equal(traced.tracingCount, 1);
    const graph = traced.concreteFunctions()[0].graph;
    assert.match(graph, /while_loop/);
    assert.match(graph, /print \{template="FizzBuzz"\}/);
    traced.dispose();
  } finally {
    tl.setLogHandler(null);
  }
});

test('autograph/break, continue and early return inside tensor loops lower to flags in the loop condition', () => {
  const { untilAbove, skipTwo, firstAbove } = compile(`
    function untilAbove(n) {
      let i = tl.scalar(0), s = tl.scalar(0);
      while (true) {
        i = i.add(1);
        if (i.greater(n)) break;
        if (tl.equal(i, 3)) continue;
        s = s.add(i);
      }
      return s;
    }
    function skipTwo(n) {
      let s = tl.scalar(0);
      for (let i = tl.scalar(0); i.less(n); i = i.add(1)) {
        if (tl.equal(i, 2)) continue;
        s = s.add(i);
      }
      return s;
    }
    function firstAbove(xs, threshold) {
      for (const x of xs) {
        if (x.greater(threshold)) return x;
      }
      return tl.scalar(-1);
    }`, ['untilAbove', 'skipTwo', 'firstAbove']);
  const a = eagerAndTraced(untilAbove, [() => [tl.scalar(5)], () => [tl.scalar(2)]]);
  assertSame(a.rows, [12, 3]);
  assert.match(a.graph, /while_loop/);
  const b = eagerAndTraced(skipTwo, [() => [tl.scalar(5)], () => [tl.scalar(2)]]);
  assertSame(b.rows, [8, 1]);   // the update still runs after `continue`
  const c = eagerAndTraced(firstAbove, [() => [tl.tensor([1, 5, 2, 7]), tl.scalar(4)], () => [tl.tensor([1, 2, 3, 0]), tl.scalar(4)]]);
  assertSame(c.rows, [5, -1]);
  assert.match(c.graph, /while_loop[^\n]*maximum_iterations=4/);
  for (const f of [a, b, c]) f.traced.dispose();
});

test('autograph/for...of over a tensor walks its first dimension: rows eagerly, while_loop + gather traced', () => {
  const { rowSum, countBig } = compile(`
    function rowSum(m) {
      let total = tl.zeros([3]);
      for (const row of m) total = total.add(row);
      return total;
    }
    function countBig(m) {
      let count = tl.scalar(0);
      for (const row of m) count = count.add(tl.sum(row).greater(6) && tl.max(row).less(10) ? 1 : 0);
      return count;
    }`, ['rowSum', 'countBig']);
  const m = () => [tl.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])];
  const fixed = eagerAndTraced(rowSum, [m]);
  assertSame(fixed.rows, [[12, 15, 18]]);
  assert.match(fixed.graph, /while_loop[^\n]*maximum_iterations=3/);
  assert.match(fixed.graph, /gather/);
  const anyRows = eagerAndTraced(rowSum, [m, () => [tl.ones([5, 3])]], { inputSignature: [new tl.TensorSpec([null, 3])] });
  assertSame(anyRows.rows, [[12, 15, 18], [5, 5, 5]]);
  assert.equal(anyRows.traced.tracingCount, 1);
  assert.match(anyRows.graph, /maximum_iterations=-1/);   // the length is computed in the graph
  const counted = eagerAndTraced(countBig, [m]);
  assertSame(counted.rows, [2]);
  for (const f of [fixed, anyRows, counted]) f.traced.dispose();
});

test('autograph/&&, || , ! and ?: on tensors: tl.cond with the right operand evaluated lazily', () => {
  let rightCalls = 0;
  const { logic } = compile(`
    function logic(a, b) {
      const both = a.greater(0) && right(b);
      const either = a.greater(0) || right(b);
      const neither = !either;
      const larger = a.greater(b) ? a : b;
      return [tl.cast(both, 'float32'), tl.cast(either, 'float32'), tl.cast(neither, 'float32'), larger];
    }`, ['logic'], { right: (b) => { rightCalls += 1; return b.greater(0); } });
  const cases = [[1, 2], [1, -2], [-1, 2], [-1, -2]];
  const { traced, rows, graph } = eagerAndTraced(logic, cases.map(([a, b]) => () => [tl.scalar(a), tl.scalar(b)]));
  assertSame(rows, [[1, 1, 0, 2], [0, 1, 0, 1], [0, 1, 0, 2], [0, 0, 1, -1]]);
  assert.equal(traced.tracingCount, 1);
  assert.equal(graph.match(/= cond /g).length, 3);
  rightCalls = 0;
  tl.tidy(() => logic(tl.scalar(-1), tl.scalar(2)));   // eagerly: && skips right(), || calls it
  assert.equal(rightCalls, 1);
  const { flip } = compile('function flip(x) { return !x.greater(0); }', ['flip']);
  assert.deepEqual(tl.tidy(() => flip(tl.tensor([1, -1])).arraySync()), [false, true]);   // element-wise on any shape
  traced.dispose();
});

test('autograph/gradients through a converted if and while equal tl.cond and tl.whileLoop', () => {
  const { viaIf, viaWhile } = compile(`
    function viaIf(x) {
      const tape = new tl.GradientTape();
      tape.watch(x);
      let y;
      if (tl.sum(x).greater(0)) y = x.mul(x);
      else y = x.mul(3);
      const g = tape.gradient(tl.sum(y), x);
      tape.dispose();
      return g;
    }
    function viaWhile(x, n) {
      const tape = new tl.GradientTape();
      tape.watch(x);
      let v = tl.onesLike(x);
      let i = tl.scalar(0);
      while (i.less(n)) {
        v = v.mul(x);
        i = i.add(1);
      }
      const g = tape.gradient(tl.sum(v), x);
      tape.dispose();
      return g;
    }`, ['viaIf', 'viaWhile']);
  const handIf = (x) => {
    const tape = new tl.GradientTape();
    tape.watch(x);
    const y = tl.cond(tl.sum(x).greater(0), () => x.mul(x), () => x.mul(3));
    const g = tape.gradient(tl.sum(y), x);
    tape.dispose();
    return g;
  };
  const handWhile = (x, n) => {
    const tape = new tl.GradientTape();
    tape.watch(x);
    const [, v] = tl.whileLoop((i) => i.less(n), (i, v) => [i.add(1), v.mul(x)], [tl.scalar(0), tl.onesLike(x)]);
    const g = tape.gradient(tl.sum(v), x);
    tape.dispose();
    return g;
  };
  const ifArgs = [() => [tl.tensor([1, 2])], () => [tl.tensor([-1, -2])]];
  const converted = eagerAndTraced(viaIf, ifArgs);
  const hand = eagerAndTraced(handIf, ifArgs);
  assertSame(converted.rows, [[2, 4], [3, 3]]);
  assert.deepEqual(converted.rows, hand.rows);
  const whileArgs = [() => [tl.tensor([1.5, 2]), tl.scalar(3)]];
  const convertedLoop = eagerAndTraced(viaWhile, whileArgs);
  const handLoop = eagerAndTraced(handWhile, whileArgs);
  assertSame(convertedLoop.rows, [[6.75, 12]]);   // d/dx sum(x^3) = 3 x^2
  assert.deepEqual(convertedLoop.rows, handLoop.rows);
  assert.match(convertedLoop.graph, /while_grad/);
  for (const f of [converted, hand, convertedLoop, handLoop]) f.traced.dispose();
});

test('autograph/ordinary JavaScript behaves identically converted and unconverted', async () => {
  const source = readFileSync(new URL('./fixtures/autograph_corpus.js', import.meta.url), 'utf8');
  const plain = await new Function('tl', source)(tl);
  const converted = await new Function('tl', tl.autograph.convert(source))(tl);
  assert.ok(Object.keys(plain).length >= 35);
  for (const key of Object.keys(plain)) assert.deepEqual(converted[key], plain[key], key);
  assert.equal(converted.genSource, true);   // the generator's text is untouched
});

/** Imports converted module text, with `tl` in scope. */
async function importConverted(text, filename) {
  globalThis.tracelabForAutographTest = tl;
  try {
    const code = `const tl = globalThis.tracelabForAutographTest;\n${tl.autograph.convert(text, { filename })}`;
    return await import(`data:text/javascript,${encodeURIComponent(code)}`);
  } finally {
    delete globalThis.tracelabForAutographTest;
  }
}

test('autograph/ordinary JavaScript at scale: acorn and astring, converted, parse and print like the originals', async () => {
  const packages = new URL('../../node_modules/', import.meta.url);
  const read = (path) => readFileSync(new URL(path, packages), 'utf8');
  const acorn = await import(new URL('acorn/dist/acorn.mjs', packages).href);
  const astring = await import(new URL('astring/dist/astring.mjs', packages).href);
  const convertedAcorn = await importConverted(read('acorn/dist/acorn.mjs'), 'acorn.mjs');
  const convertedAstring = await importConverted(read('astring/dist/astring.mjs'), 'astring.mjs');
  const options = { ecmaVersion: 'latest', sourceType: 'module', locations: true };
  for (const file of ['../../wasm/js/autograph/lower.mjs', '../../web/main.js', './api.test.mjs']) {
    const source = readFileSync(new URL(file, import.meta.url), 'utf8');
    const tree = acorn.parse(source, options);
    assert.equal(JSON.stringify(convertedAcorn.parse(source, options)), JSON.stringify(tree), file);  // two Node classes
    assert.equal(convertedAstring.generate(tree), astring.generate(tree), file);
  }
  assert.throws(() => convertedAcorn.parse('let x = ;', options), { name: 'SyntaxError', message: 'Unexpected token (1:8)' });
});

test('autograph/for...of over a Dataset inside tl.function is one dataset_loop node', () => {
  const xs = tl.tensor([1, 2, 3]);
  const ds = tl.data.fromTensorSlices([xs]);
  const acc = tl.variable(tl.scalar(0), false, 'autograph_acc');
  const { accumulate, total } = compile(`
    function accumulate(ds) {
      for (const [x] of ds) acc.assignAdd(tl.sum(x));
    }
    function total(ds) {
      let sum = tl.scalar(0);
      for (const [x] of ds) sum = sum.add(x);
      return sum;
    }`, ['accumulate', 'total'], { acc });
  const epoch = tl.function(() => accumulate(ds), { name: 'epoch' });
  epoch();
  epoch();
  assert.equal(tl.tidy(() => acc.read().dataSync()[0]), 12);
  assert.match(epoch.concreteFunctions()[0].graph, /dataset_loop/);
  assert.equal(tl.tidy(() => total(ds).dataSync()[0]), 6);   // eagerly a plain loop may carry state
  assert.throws(() => tl.function(() => total(ds))(), (e) => e instanceof tl.ConversionError &&
    /^cannot convert for\.\.\.of loop at line 7, column 7 of sample\.mjs: inside tl\.function a loop over a tl\.data Dataset .*'sum' is assigned in it/.test(e.message));
  epoch.dispose();
  acc.dispose();
  xs.dispose();
});

/** The ConversionError `fn()` throws: its message matches `pattern` and it names `construct`, `line` and `column`. */
function assertConversionError(fn, construct, line, column, pattern) {
  let error = null;
  try {
    tl.tidy(fn);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof tl.ConversionError, `expected a ConversionError, got ${error}`);
  assert.equal(error.name, 'ConversionError');
  assert.match(error.message, new RegExp(`^cannot convert ${construct} at line ${line}, column ${column} of sample\\.mjs: `));
  assert.match(error.message, pattern);
  assert.deepEqual([error.construct, error.line, error.column, error.filename], [construct, line, column, 'sample.mjs']);
}

test('autograph/errors name the construct, the line and the column, as TensorFlow words them', () => {
  const start = live();
  const f = compile(`
    function oneBranch(x) {
      let y;
      if (x.greater(0)) {
        y = x.mul(2);
      }
      return y;
    }
    function castInLoop(n) {
      let i = tl.scalar(0);
      while (i.less(n)) i = tl.cast(i.add(1), 'int32');
      return i;
    }
    function growInLoop(n) {
      let s = tl.ones([1]);
      for (let i = tl.scalar(0); i.less(n); i = i.add(1)) s = tl.concat([s, s]);
      return s;
    }
    function twoStructures(x) {
      if (x.greater(0)) return x;
      return [x, x];
    }
    function noElseReturn(x) {
      if (x.greater(0)) { return x; }
    }
    function labeled(m) {
      let s = tl.scalar(0);
      outer: for (const row of m) {
        for (const v of row) {
          if (v.greater(2)) break outer;
          s = s.add(v);
        }
      }
      return s;
    }
    function nonScalar(x) { if (x.greater(0)) return x; return x.neg(); }
    function notBool(x) { if (x) return x; return x.neg(); }
    function negateFloat(x) { return !x; }
    function andFloat(x) { return x.greater(0) && x; }
    function loopedString(m) { let n = tl.scalar(0); for (const row of m) n += 1; return n; }
    function switchContinue(m, k) {
      let s = tl.scalar(0);
      for (const row of m) {
        switch (k) {
          case 1: continue;
          default: s = s.add(tl.sum(row));
        }
      }
      return s;
    }`,
  ['oneBranch', 'castInLoop', 'growInLoop', 'twoStructures', 'noElseReturn', 'labeled', 'nonScalar', 'notBool',
   'negateFloat', 'andFloat', 'loopedString', 'switchContinue']);
  const traced = (fn, ...args) => () => tl.function(fn)(...args.map((a) => (typeof a === 'function' ? a() : a)));
  const s = () => tl.scalar(1);
  assertConversionError(traced(f.oneBranch, s), 'if statement', 4, 7, /'y' must also be defined in the else branch/);
  assertConversionError(traced(f.castInLoop, s), 'while loop', 11, 7, /'i' has dtype float32 before the loop, but dtype int32 after one iteration$/);
  assertConversionError(traced(f.growInLoop, s), 'for loop', 16, 7, /'s' has shape \(1,\) before the loop, but shape \(2,\) after one iteration/);
  assertConversionError(traced(f.twoStructures, s), 'if statement', 20, 7,
                        /the main branch returns a float32 tensor of shape \(\) but the else branch returns an array of 2 tensors/);
  assertConversionError(traced(f.noElseReturn, s), 'if statement', 24, 7, /the else branch must also have a return statement$/);
  const m = () => tl.tensor([[1, 2], [3, 4]]);
  assertConversionError(traced(f.labeled, m), 'for...of loop', 28, 14,
                        /'break outer' \(line 30, column 29\) jumps out of a nested loop or switch; labeled break and continue out of a tensor loop are not supported/);
  assert.equal(tl.tidy(() => f.labeled(m()).dataSync()[0]), 3);   // eagerly the plain loops run
  const v = () => tl.tensor([1, -1]);
  assertConversionError(() => f.nonScalar(v()), 'if statement', 36, 29, /the condition must be a bool scalar tensor, got a bool tensor of shape \(2,\)/);
  assertConversionError(traced(f.nonScalar, v), 'if statement', 36, 29, /got a bool tensor of shape \(2,\)/);
  assertConversionError(() => f.notBool(s()), 'if statement', 37, 27, /the condition must be a bool scalar tensor, got a float32 tensor of shape \(\)/);
  assertConversionError(traced(f.negateFloat, s), "'!' expression", 38, 38, /the operand must be a bool tensor, got a float32 tensor/);
  assertConversionError(traced(f.andFloat, s), "'&&' expression", 39, 35, /the right operand of '&&' must be a bool scalar tensor or a boolean/);
  // JavaScript's + on a symbolic tensor is caught where it happens (Tensor's Symbol.toPrimitive), before the loop sees a string.
  assert.throws(() => tl.tidy(traced(f.loopedString, m)), (e) => e instanceof tl.OperatorNotAllowedInGraphError && /used as a JavaScript value/.test(e.message));
  assertConversionError(() => tl.function(f.switchContinue)(m(), 2), 'for...of loop', 43, 7,
                        /'continue' \(line 45, column 19\) jumps out of a nested loop or switch/);
  assert.equal(tl.tidy(() => f.switchContinue(m(), 2).dataSync()[0]), 10);   // eagerly the plain loop runs
  assert.equal(live(), start);   // every failed trace left the engine clean
  assert.equal(tl.tidy(() => f.twoStructures(tl.scalar(2)).dataSync()[0]), 2);   // eagerly only one branch runs
});

test('autograph/setLoopOptions: a loop variable declared relaxed may change shape; one trace serves every trip count', () => {
  const start = live();
  const f = compile(`
    function grow(n) {
      let s = tl.ones([1]);
      for (let i = tl.scalar(0); i.less(n); i = i.add(1)) {
        tl.autograph.setLoopOptions({ shapeInvariants: [[s, [null]]] });
        s = tl.concat([s, s]);
      }
      return s;
    }
    function rows(n) {
      let m = tl.zeros([1, 2]);
      let i = tl.scalar(0);
      while (i.less(n)) {
        tl.autograph.setLoopOptions({ shapeInvariants: [[m, [null, 2]]] });
        let j = 0;
        while (j < 2) {   // a loop that runs as JavaScript: its options are its own and change nothing
          tl.autograph.setLoopOptions({ shapeInvariants: [] });
          j += 1;
        }
        m = tl.concat([m, tl.ones([1, 2]).mul(i)]);
        i = i.add(1);
      }
      return m;
    }
    function late(n) {
      let s = tl.ones([1]);
      let i = tl.scalar(0);
      while (i.less(n)) {
        s = tl.concat([s, s]);
        tl.autograph.setLoopOptions({ shapeInvariants: [[s, [null]]] });
        i = i.add(1);
      }
      return s;
    }
    function wrongRank(n) {
      let s = tl.ones([1]);
      let i = tl.scalar(0);
      while (i.less(n)) {
        tl.autograph.setLoopOptions({ shapeInvariants: [[s, [null, 2]]] });
        s = tl.concat([s, s]);
        i = i.add(1);
      }
      return s;
    }`, ['grow', 'rows', 'late', 'wrongRank']);
  const grown = eagerAndTraced(f.grow, [0, 3, 4].map((n) => () => [tl.scalar(n)]));
  assertSame(grown.rows, [[1], Array(8).fill(1), Array(16).fill(1)]);
  assert.equal(grown.traced.tracingCount, 1);
  assert.match(grown.graph, /while_loop/);
  const stacked = eagerAndTraced(f.rows, [0, 2].map((n) => () => [tl.scalar(n)]));
  assertSame(stacked.rows, [[[0, 0]], [[0, 0], [0, 0], [1, 1]]]);
  assert.equal(stacked.traced.tracingCount, 1);
  // Without the declaration the same loop is the error that names the way out.
  assert.throws(() => tl.tidy(() => tl.function(compile(`function g(n) { let s = tl.ones([1]);
      for (let i = tl.scalar(0); i.less(n); i = i.add(1)) s = tl.concat([s, s]); return s; }`, ['g']).g)(tl.scalar(1))),
  /'s' has shape \(1,\) before the loop, but shape \(2,\) after one iteration; .*tl\.autograph\.setLoopOptions/);
  assertConversionError(() => tl.tidy(() => tl.function(f.late)(tl.scalar(2))), 'while loop', 28, 7,
                        /shapeInvariants\[0\] is not one of the loop's variables as this iteration entered it; call setLoopOptions at the top/);
  assertConversionError(() => tl.tidy(() => tl.function(f.wrongRank)(tl.scalar(2))), 'while loop', 38, 7,
                        /shapeInvariants\[0\] gives shape \(None, 2\) for a variable of shape \(1,\)/);
  for (const [options, pattern] of [[() => null, /expected an options object/], [() => ({ maximumIterations: 3 }), /unknown option 'maximumIterations'/],
                                    [() => ({ shapeInvariants: [[tl.scalar(1), [1.5]]] }), /shapeInvariants\[0\] must be \[tensor, shape\]/],
                                    [() => ({ shapeInvariants: 'x' }), /must be an array of \[tensor, shape\] pairs/]])
    assert.throws(() => tl.tidy(() => tl.autograph.setLoopOptions(options())), (e) => e.name === 'InvalidArgument' && pattern.test(e.message));
  grown.traced.dispose();
  stacked.traced.dispose();
  assert.equal(live(), start);
});

test('autograph/toCode, toFunction, a script body and a module: the converter the module hook uses', async () => {
  function clamp(x, hi) {
    if (x.greater(hi)) {
      return hi;
    }
    return x;
  }
  const code = tl.autograph.toCode(clamp);
  assert.match(code, /^function clamp\(x, hi\) \{/);
  assert.match(code, /tl\.autograph\.ifStmt\(x\.greater\(hi\)/);
  assert.match(code, /"if statement at line 2, column 5"/);   // lines count from the function's first line
  const converted = tl.autograph.toFunction(clamp);
  const traced = tl.function(converted);
  assert.deepEqual(tl.tidy(() => [5, 1].map((x) => traced(tl.scalar(x), tl.scalar(3)).dataSync()[0])), [3, 1]);
  assert.match(traced.concreteFunctions()[0].graph, /= cond /);
  const scale = 10;
  const scaled = tl.autograph.toFunction((x) => (x.greater(0) ? x.mul(scale) : x), { scale });
  assert.equal(tl.tidy(() => tl.function(scaled)(tl.scalar(2)).dataSync()[0]), 20);
  assert.throws(() => tl.autograph.toFunction((x) => (x.greater(0) ? x.mul(scale) : x))(tl.scalar(1)), ReferenceError);
  assert.throws(() => tl.autograph.toCode(Math.max), { name: 'InvalidArgument', message: /native or bound function/ });

  const body = 'if (x.greater(0)) return x.mul(2);\nreturn x.neg();';
  const script = new Function('tl', 'x', tl.autograph.convert(body));
  assert.deepEqual(tl.tidy(() => [script(tl, tl.scalar(3)).dataSync()[0], script(tl, tl.scalar(-3)).dataSync()[0]]), [6, 3]);

  const moduleText = readFileSync(new URL('../../bench/js/autograph_module.mjs', import.meta.url), 'utf8');
  const module = await importConverted(moduleText, 'autograph_module.mjs');
  assert.deepEqual(tl.tidy(() => [3, -2, 0].map((x) => tl.function(module.sign)(tl.scalar(x)).dataSync()[0])), [1, -1, 0]);
  assert.equal(tl.tidy(() => tl.function(module.collatzSteps)(tl.scalar(27)).dataSync()[0]), 111);
  assert.equal(module.search([1, 3, 5, 7], 5), 2);
  assert.deepEqual(module.movingAverage([1, 2, 3, 4], 2), [null, 1.5, 2.5, 3.5]);
  assert.equal(module.rateAt(module.parseSchedule('0:0.1,10:0.01'), 12), 0.01);
  traced.dispose();
});

test('autograph: loadTracelab({ autograph: false }) leaves out the converter, keeps the runtime', async () => {
  const lean = await loadTracelab({ autograph: false });
  assert.equal(typeof lean.autograph.ifStmt, 'function');
  assert.throws(() => lean.autograph.convert('if (a) b();'), (e) => e instanceof lean.InvalidArgument &&
                /tl\.autograph\.convert: .*loadTracelab\(\{ autograph: false \}\)/.test(e.message));
  assert.throws(() => lean.autograph.toCode(() => 1), /tl\.autograph\.toCode: /);
  // Text converted by a full load runs on the lean one: the runtime is all converted code needs.
  const body = tl.autograph.convert('let y = 0; if (x.greater(0)) { y = x; } else { y = x.neg(); } return y;');
  const abs = lean.function(new Function('tl', 'x', body).bind(null, lean));
  assert.deepEqual(Array.from(abs(lean.scalar(-3)).dataSync()), [3]);
});

test('a symbolic tensor used as a JavaScript value while tracing is an error that points to tl.autograph', () => {
  const tracedWith = (body) => () => tl.function((x) => { body(x); return x; })(tl.scalar(1));
  for (const [what, body] of [['t > 0', (x) => x > 0], ['Number(t)', (x) => Number(x)], ['t + 1', (x) => x + 1],
                              ['t == 1', (x) => x == 1]]) // eslint-disable-line eqeqeq
    assert.throws(tracedWith(body), (e) => e instanceof tl.OperatorNotAllowedInGraphError &&
                  /symbolic tensor f32\[\] was used as a JavaScript value .* tl\.autograph/.test(e.message), what);
  assert.throws(tracedWith((x) => x.dataSync()), /has no values while its function is being traced; .* tl\.autograph/);
  // A template string or String(t) would freeze trace-time text: an error too, pointing to toString and tl.print.
  for (const [what, body] of [['`${t}`', (x) => `${x}`], ['String(t)', (x) => String(x)]])
    assert.throws(tracedWith(body), (e) => e instanceof tl.OperatorNotAllowedInGraphError &&
                  /symbolic tensor f32\[\] was turned into a string .* t\.toString\(\) .* tl\.print/.test(e.message), what);
  // The printed form stays for t.toString() of a symbolic tensor, and for any use of an eager one.
  assert.doesNotThrow(tracedWith((x) => x.toString()));
  assert.match(`${tl.scalar(2)}`, /tl\.Tensor\(shape=\(\), dtype=float32, values=2/);
  assert.ok(Number.isNaN(Number(tl.scalar(2))));   // as any object: no silent value
});
