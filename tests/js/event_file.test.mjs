// TensorBoard event files from JavaScript: js/event_file.mjs's CRC-32C and TFRecord framing against known values,
// tl.summary.createFileWriter in Node (through the default-writer scope too) checked by the same protoc-based
// checker as the C++ writer (tests/tensorboard/check_events.py, run with Debian's python3 and python3-protobuf),
// the in-memory EventFile the page downloads giving the same records, graphs (writer.graph, tl.summary.graph: the
// core's GraphDef of a concrete function, checked node by node against its graph JSON), and the errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dist = process.env.TRACELAB_DIST ?? new URL('../../build/wasm/dist', import.meta.url).pathname;
const { loadTracelab } = await import(pathToFileURL(join(dist, 'tracelab.mjs')).href);
const { crc32c, maskedCrc32c, tfrecord } = await import(pathToFileURL(join(dist, 'js/event_file.mjs')).href);
const tl = await loadTracelab();
const checker = new URL('../tensorboard/check_events.py', import.meta.url).pathname;
const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';  // Debian's, which has python3-protobuf

const ascii = (text) => new TextEncoder().encode(text);

/** The complete records of an event file (CRCs checked), written here as the checker does. */
function tfRecords(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let at = 0; at + 12 <= bytes.length;) {
    const length = Number(view.getBigUint64(at, true));
    assert.equal(view.getUint32(at + 8, true), maskedCrc32c(bytes.subarray(at, at + 8)));
    if (at + 16 + length > bytes.length) break;
    const data = bytes.subarray(at + 12, at + 12 + length);
    assert.equal(view.getUint32(at + 12 + length, true), maskedCrc32c(data));
    out.push(data);
    at += 16 + length;
  }
  return out;
}

test('event files: CRC-32C check values, the mask, a TFRecord', () => {
  assert.equal(crc32c(ascii('123456789')), 0xe3069283);
  assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa);
  assert.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43);
  assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e);
  const crc = 0xe3069283;
  assert.equal(maskedCrc32c(ascii('123456789')), (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0);
  const record = tfrecord(ascii('abc'));
  assert.equal(record.length, 19);
  assert.deepEqual([...record.subarray(0, 8)], [3, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual(tfRecords(record).map((r) => new TextDecoder().decode(r)), ['abc']);
});

test('event files: createFileWriter in Node, read back by the protoc-based checker', () => {
  const logdir = join(mkdtempSync(join(tmpdir(), 'tracelab-js-events-')), 'run', 'a');
  try {
    const writer = tl.summary.createFileWriter(logdir);  // parents made
    const events = [];
    writer.scalar('loss', 0.1, 0);
    events.push({ kind: 'scalar', tag: 'loss', step: 0, value: 0.1 });
    writer.scalar('train/accuracy', tl.scalar(-12.5), -3);
    events.push({ kind: 'scalar', tag: 'train/accuracy', step: -3, value: -12.5 });
    writer.scalar('odd', NaN, 2 ** 40);
    events.push({ kind: 'scalar', tag: 'odd', step: 2 ** 40, value: 'nan' });
    writer.asDefault(() => {
      assert.equal(tl.summary.scalar('scoped', 0.75), true);
      assert.equal(tl.summary.histogram('weights', tl.tensor([[1, 2], [2, 9]])), true);
    }, 9);
    events.push({ kind: 'scalar', tag: 'scoped', step: 9, value: 0.75 });
    events.push({ kind: 'histogram', tag: 'weights', step: 9, values: [1, 2, 2, 9], buckets: 30 });
    const spread = Array.from({ length: 500 }, (_, i) => Math.fround(Math.sin(i) * 3 + (i % 7)));
    writer.histogram('spread', Float32Array.from(spread), 1, 12);
    events.push({ kind: 'histogram', tag: 'spread', step: 1, values: spread, buckets: 12 });
    writer.histogram('constant', [4, 4, 4], 2);
    events.push({ kind: 'histogram', tag: 'constant', step: 2, values: [4, 4, 4], buckets: 30 });
    writer.histogram('empty', [], 3);
    events.push({ kind: 'histogram', tag: 'empty', step: 3, values: [], buckets: 30 });
    writer.close();
    assert.match(writer.path, /events\.out\.tfevents\.\d{10}\.[^/]+$/);
    writeFileSync(join(logdir, 'expected.json'), JSON.stringify({ events }));
    const out = execFileSync(python, [checker, logdir], { encoding: 'utf8' });
    assert.match(out, /check_events: OK: .* 9 records \(4 scalars, 4 histograms, 0 graphs\)/);

    // readEvents (the page's reader) gives back what was written, through the file's bytes.
    const read = tl.summary.readEvents(readFileSync(writer.path));
    assert.equal(read[0].fileVersion, 'brain.Event:2');
    assert.deepEqual(read.slice(1, 5).map((e) => [e.tag, e.step, e.plugin, e.value]),
      [['loss', 0, 'scalars', Math.fround(0.1)], ['train/accuracy', -3, 'scalars', -12.5], ['odd', 2 ** 40, 'scalars', NaN],
        ['scoped', 9, 'scalars', 0.75]]);
    assert.deepEqual(read[5].value[0], [1, 1 + 8 / 30, 1]);
  } finally {
    rmSync(join(logdir, '..', '..'), { recursive: true, force: true });
  }
});

test('event files: an in-memory writer (the page\'s) gives the same records; a cut-short copy keeps its complete records', () => {
  const writer = tl.summary.createMemoryFileWriter('page');
  assert.match(writer.fileName, /^events\.out\.tfevents\.\d{10}\.page$/);
  writer.asDefault(() => {
    for (let step = 1; step <= 3; ++step) tl.summary.scalar('eager/loss', 1 / step, step);
    assert.equal(tl.summary.histogram('w', tl.tensor([0, 1, 2, 3, 4]), 4), true);
  });
  writer.histogram('w5', [4, 3, 2, 1, 0], 5, 5);  // width 0.8: one value per bucket
  const bytes = writer.bytes();
  const events = tl.summary.readEvents(bytes);
  assert.deepEqual(events.slice(0, 4).map((e) => e.value), [undefined, 1, Math.fround(1 / 2), Math.fround(1 / 3)]);
  assert.deepEqual(events.map((e) => e.step), [0, 1, 2, 3, 4, 5]);
  const rows = events[4].value;
  assert.equal(rows.length, 30);
  assert.deepEqual(rows.map((r) => r[2]).reduce((a, b) => a + b), 5);
  assert.deepEqual([rows[0][0], rows[29][1], rows[0][2], rows[29][2]], [0, 4, 1, 1]);
  assert.deepEqual(events[5].value, [0, 1, 2, 3, 4].map((i) => [i * 0.8, i === 4 ? 4 : (i + 1) * 0.8, 1]));
  const ends = [];
  let end = 0;
  for (const record of tfRecords(bytes)) ends.push(end += record.length + 16);
  for (let cut = 0; cut <= bytes.length; ++cut)
    assert.equal(tl.summary.readEvents(bytes.subarray(0, cut)).length, ends.filter((e) => e <= cut).length, `cut at ${cut}`);
  const broken = bytes.slice();
  broken[ends[1] + 20] ^= 1;  // a flipped bit in the third record's data
  assert.throws(() => tl.summary.readEvents(broken), /the data CRC of the record at byte \d+ is wrong/);
});

test('event files: writer.graph and tl.summary.graph write a concrete function\'s GraphDef, read back by the checker', () => {
  const logdir = mkdtempSync(join(tmpdir(), 'tracelab-js-graphs-'));
  const w = tl.variable(tl.tensor([1, -2, 0.5]), true, 'dense/w');
  const count = tl.variable(tl.scalar(0), false, 'count');
  // A variable write and read, constants, op attributes (reduce_sum's axes, keepdims) and a tl.cond (sub-graphs).
  const step = tl.function((x, flag) => {
    count.assignAdd(tl.scalar(1));
    const y = tl.sum(tl.relu(x.mul(w.read())), 1, true);
    return tl.cond(flag, () => y.mul(2), () => y.sub(1));
  }, { name: 'step' });
  try {
    const concrete = step.getConcreteFunction(new tl.TensorSpec([null, 3]), new tl.TensorSpec([], 'bool'));
    const graph = JSON.parse(concrete.graphJson);
    assert.ok(graph.nodes.some((node) => node.subgraphs?.length === 2), concrete.graph);  // the cond's branches

    const writer = tl.summary.createFileWriter(logdir);
    const events = [];
    writer.graph(concrete, 5);
    events.push({ kind: 'graph', step: 5, graph });
    writer.scalar('loss', 0.5, 6);
    events.push({ kind: 'scalar', tag: 'loss', step: 6, value: 0.5 });
    // The default writer at the current step; the tl.function stands for its only concrete function.
    writer.asDefault(() => assert.equal(tl.summary.graph(step), true), 7);
    events.push({ kind: 'graph', step: 7, graph });
    writer.asDefault(() => assert.equal(tl.summary.graph(concrete), true));  // no current step: 0
    events.push({ kind: 'graph', step: 0, graph });
    writer.close();
    writeFileSync(join(logdir, 'expected.json'), JSON.stringify({ events }));
    const out = execFileSync(python, [checker, logdir], { encoding: 'utf8' });
    assert.match(out, /check_events: OK: .* 5 records \(1 scalars, 0 histograms, 3 graphs\)/);

    // The in-memory writer writes the same GraphDef, and readEvents gives its bytes back.
    const read = tl.summary.readEvents(readFileSync(writer.path));
    assert.deepEqual(read.map((e) => [e.step, e.hasGraph ?? false]), [[0, false], [5, true], [6, false], [7, true], [0, true]]);
    const memory = tl.summary.createMemoryFileWriter();
    memory.graph(concrete);
    const [, inMemory] = tl.summary.readEvents(memory.bytes());
    assert.equal(inMemory.step, 0);
    assert.ok(inMemory.graphDef.length > 100, `${inMemory.graphDef.length} bytes`);
    assert.deepEqual(inMemory.graphDef, read[1].graphDef);
    assert.deepEqual(read[4].graphDef, read[1].graphDef);

    // A loaded saved model's function: the saved graph, the same GraphDef.
    const model = tl.savedModel.load(tl.savedModel.save({ step: concrete }));
    try {
      memory.graph(model.functions.step, 2);
      assert.deepEqual(tl.summary.readEvents(memory.bytes())[2].graphDef, read[1].graphDef);
    } finally {
      model.dispose();
    }
  } finally {
    step.dispose();
    w.dispose();
    count.dispose();
    rmSync(logdir, { recursive: true, force: true });
  }
});

test('event files: tl.summary.graph refuses what is not one concrete function, and writes nothing without a writer', () => {
  const twice = tl.function((x) => x.add(1), { name: 'twice' });
  try {
    assert.equal(tl.summary.graph(twice), false);  // no default writer
    const memory = tl.summary.createMemoryFileWriter();
    assert.throws(() => memory.graph(twice),
      (e) => e instanceof tl.InvalidArgument && /the tl.function 'twice' has 0 concrete functions; pass one/.test(e.message));
    twice(tl.scalar(1));
    twice(tl.tensor([1, 2]));
    assert.throws(() => memory.asDefault(() => tl.summary.graph(twice)), /'twice' has 2 concrete functions/);
    assert.throws(() => memory.graph({ graph: 'x' }),
      (e) => e instanceof tl.InvalidArgument && /MemoryFileWriter.graph: expected a concrete function .* got an object/.test(e.message));
    assert.throws(() => memory.graph(twice.concreteFunctions()[0], 1.5), /the step must be an integer, got 1.5/);
    assert.throws(() => tl.summary.scalarWriter().asDefault(() => tl.summary.graph(twice.concreteFunctions()[1])),
      /tl.summary.graph: this writer writes scalars only/);
    assert.equal(tl.summary.readEvents(memory.bytes()).length, 1);  // only the file_version event
    memory.graph(twice.concreteFunctions()[1], 3);
    assert.equal(tl.summary.readEvents(memory.bytes())[1].step, 3);
  } finally {
    twice.dispose();
  }
});

test('event files: errors name the folder, the tag and the writer', () => {
  const root = mkdtempSync(join(tmpdir(), 'tracelab-js-events-'));
  try {
    writeFileSync(join(root, 'a_file'), 'x');
    assert.throws(() => tl.summary.createFileWriter(join(root, 'a_file', 'logs')),
      (e) => e instanceof tl.InvalidArgument && e.message.includes(`cannot create the log folder '${join(root, 'a_file', 'logs')}'`));
    const writer = tl.summary.createFileWriter(root);
    assert.throws(() => writer.scalar('', 1, 0), /the tag must be a non-empty string/);
    assert.throws(() => writer.histogram('h', [1, Infinity], 0), /summary.histogram\('h'\): the values must be finite/);
    assert.throws(() => tl.summary.scalarWriter().asDefault(() => tl.summary.histogram('h', [1], 0)),
      /tl.summary.histogram\('h'\): this writer writes scalars only/);
    assert.notEqual(tl.summary.createFileWriter(root).path, writer.path);  // a second file in the same second
    writer.close();
    assert.throws(() => writer.scalar('x', 1, 0), /is closed/);
    assert.equal(readdirSync(root).filter((f) => f.startsWith('events.out.tfevents.')).length, 2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
