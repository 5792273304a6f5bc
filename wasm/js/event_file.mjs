// TensorBoard event files in plain JavaScript, byte for byte the format tl::summary::EventFileWriter writes (see
// core/include/tracelab/nn/event_file.h): TFRecords (uint64 length little-endian, its masked CRC-32C, the data, the
// data's masked CRC-32C) around serialized Event protos — a file_version "brain.Event:2" event first, then scalars
// (a float32 scalar TensorProto, plugin "scalars"), histograms (a [k, 3] float64 TensorProto of left edge, right
// edge and count, plugin "histograms") and graphs (a serialized GraphDef in Event.graph_def, which the core makes:
// tl::summary::graph_def_bytes), as TensorFlow 2 writes them. No WASM: the page uses it on its own thread.
//
//   const file = new EventFile();  file.scalar('loss', 0.5, 1);  const bytes = file.bytes();   // a Uint8Array
//   eventFileName(Date.now() / 1000, 'localhost')     // 'events.out.tfevents.1700000000.localhost'
import { InvalidArgument } from './errors.mjs';

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; ++i) {
    let crc = i;
    for (let bit = 0; bit < 8; ++bit) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
    table[i] = crc >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) of a Uint8Array: crc32c("123456789") === 0xE3069283. */
export function crc32c(bytes) {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; ++i) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: ((crc >>> 15) | (crc << 17)) + 0xa282ead8, as a uint32. */
export function maskedCrc32c(bytes) {
  const crc = crc32c(bytes);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

/** One TFRecord around `data` (a Uint8Array). */
export function tfrecord(data) {
  const record = new Uint8Array(8 + 4 + data.length + 4);
  const view = new DataView(record.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(record.subarray(0, 8)), true);
  record.set(data, 12);
  view.setUint32(12 + data.length, maskedCrc32c(data), true);
  return record;
}

/** The protobuf wire format, as far as events need it (the same as core/nn/detail/proto_writer.h). */
class ProtoWriter {
  #parts = [];
  #size = 0;
  #push(bytes) { this.#parts.push(bytes); this.#size += bytes.length; }
  #varint(value) {
    let v = BigInt.asUintN(64, BigInt(value));
    const out = [];
    while (v >= 0x80n) { out.push(Number(v & 0x7fn) | 0x80); v >>= 7n; }
    out.push(Number(v));
    this.#push(Uint8Array.from(out));
  }
  #key(field, wireType) { this.#varint((field << 3) | wireType); }
  #fixed(bytes, setter, value) {
    const out = new Uint8Array(bytes);
    new DataView(out.buffer)[setter](0, value, true);
    this.#push(out);
  }
  /** A varint field (an int64 as a BigInt or a safe integer; negative ones as ten bytes). */
  varint(field, value) { this.#key(field, 0); this.#varint(value); return this; }
  /** A double field. */
  double(field, value) { this.#key(field, 1); this.#fixed(8, 'setFloat64', value); return this; }
  /** A string (UTF-8) or bytes field. */
  string(field, value) {
    const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value;
    this.#key(field, 2); this.#varint(bytes.length); this.#push(bytes);
    return this;
  }
  /** A sub-message field (written even when empty). */
  message(field, writer) { return this.string(field, writer.bytes()); }
  /** A packed repeated float or double field. */
  packed(field, values, { double }) {
    const out = new Uint8Array(values.length * (double ? 8 : 4));
    const view = new DataView(out.buffer);
    values.forEach((v, i) => (double ? view.setFloat64(i * 8, v, true) : view.setFloat32(i * 4, v, true)));
    return this.string(field, out);
  }
  /** The serialized message. */
  bytes() {
    const out = new Uint8Array(this.#size);
    let at = 0;
    for (const part of this.#parts) { out.set(part, at); at += part.length; }
    return out;
  }
}

/** TensorShapeProto of `dims` (dim = 2, Dim.size = 1; a zero size left out, as proto3 does). */
function shapeProto(dims) {
  const shape = new ProtoWriter();
  for (const size of dims) shape.message(2, size === 0 ? new ProtoWriter() : new ProtoWriter().varint(1, size));
  return shape;
}

function eventAt(step, wallTime) {
  const event = new ProtoWriter().double(1, wallTime);
  if (BigInt(step) !== 0n) event.varint(2, step);
  return event;
}

function summaryEvent(tag, tensor, plugin, step, wallTime) {
  if (typeof tag !== 'string' || tag === '') throw new InvalidArgument(`summary: the tag must be a non-empty string, got ${String(tag)}`);
  const metadata = new ProtoWriter().message(1, new ProtoWriter().string(1, plugin));
  const value = new ProtoWriter().string(1, tag).message(8, tensor).message(9, metadata);
  return eventAt(step, wallTime).message(5, new ProtoWriter().message(1, value)).bytes();
}

/** The file_version event that opens every event file. */
export function fileVersionEvent(wallTime) { return eventAt(0, wallTime).string(3, 'brain.Event:2').bytes(); }

/** A scalar's Event: `value` as a float32 scalar TensorProto (DT_FLOAT = 1, float_val = 5), plugin "scalars". */
export function scalarEvent(tag, value, step, wallTime) {
  const tensor = new ProtoWriter().varint(1, 1).message(2, shapeProto([])).packed(5, [value], { double: false });
  return summaryEvent(tag, tensor, 'scalars', step, wallTime);
}

/**
 * TensorBoard's histogram of `values` as [left, right, count] rows: none for no values, [v - 0.5, v + 0.5, n]
 * when all equal v, else `buckets` equal-width buckets from the minimum to the maximum (the last one closed).
 */
export function histogramBuckets(tag, values, buckets) {
  if (!Number.isInteger(buckets) || buckets < 1) throw new InvalidArgument(`summary.histogram('${tag}'): buckets must be at least 1, got ${buckets}`);
  if (values.length === 0) return [];
  let min = Infinity, max = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) throw new InvalidArgument(`summary.histogram('${tag}'): the values must be finite, got ${v}`);
    min = Math.min(min, v); max = Math.max(max, v);
  }
  if (min === max) return [[min - 0.5, max + 0.5, values.length]];
  const width = (max - min) / buckets;
  const rows = Array.from({ length: buckets }, (_, i) => [min + i * width, i + 1 === buckets ? max : min + (i + 1) * width, 0]);
  for (const v of values) rows[Math.min(Math.floor((v - min) / width), buckets - 1)][2] += 1;
  return rows;
}

/** A histogram's Event: a [k, 3] DT_DOUBLE (= 2) TensorProto in double_val (= 6), plugin "histograms". */
export function histogramEvent(tag, values, step, wallTime, buckets = 30) {
  const rows = histogramBuckets(tag, Array.from(values, Number), buckets);
  const tensor = new ProtoWriter().varint(1, 2).message(2, shapeProto([rows.length, 3])).packed(6, rows.flat(), { double: true });
  return summaryEvent(tag, tensor, 'histograms', step, wallTime);
}

/** A graph's Event: `graphDef` (a serialized GraphDef, a Uint8Array) in graph_def (= 4). */
export function graphEvent(graphDef, step, wallTime) { return eventAt(step, wallTime).string(4, graphDef).bytes(); }

/** TensorBoard's file name: events.out.tfevents.<unix seconds>.<host>. */
export function eventFileName(wallTime, host) { return `events.out.tfevents.${Math.floor(wallTime)}.${host}`; }

/** An event file kept in memory (the page's download): records appended, bytes() the whole file so far. */
export class EventFile {
  #records = [];
  constructor(wallTime = Date.now() / 1000) { this.#append(fileVersionEvent(wallTime)); }
  #append(event) { const record = tfrecord(event); this.#records.push(record); return record; }
  /** Appends a scalar; returns its record. */
  scalar(tag, value, step, wallTime = Date.now() / 1000) { return this.#append(scalarEvent(tag, value, step, wallTime)); }
  /** Appends a histogram of `values` (numbers); returns its record. */
  histogram(tag, values, step, buckets = 30, wallTime = Date.now() / 1000) {
    return this.#append(histogramEvent(tag, values, step, wallTime, buckets));
  }
  /** Appends a graph (a serialized GraphDef); returns its record. */
  graph(graphDef, step = 0, wallTime = Date.now() / 1000) { return this.#append(graphEvent(graphDef, step, wallTime)); }
  /** The file: every record so far, in order. */
  bytes() {
    const out = new Uint8Array(this.#records.reduce((n, r) => n + r.length, 0));
    let at = 0;
    for (const record of this.#records) { out.set(record, at); at += record.length; }
    return out;
  }
}

/** Reads a protobuf message into {field: [values]}: varints as BigInt, fixed64/fixed32 and payloads as bytes. */
function decodeMessage(bytes) {
  const fields = {};
  let at = 0;
  const varint = () => {
    let value = 0n, shift = 0n;
    for (;;) {
      if (at >= bytes.length) throw new InvalidArgument('event file: a message ends inside a varint');
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
      shift += 7n;
    }
  };
  const take = (n) => {
    if (at + n > bytes.length) throw new InvalidArgument('event file: a field runs past the end of its message');
    return bytes.subarray((at += n) - n, at);
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Number(key >> 3n), wireType = Number(key & 7n);
    const value = wireType === 0 ? varint() : wireType === 1 ? take(8) : wireType === 5 ? take(4)
      : wireType === 2 ? take(Number(varint())) : null;
    if (value === null) throw new InvalidArgument(`event file: wire type ${wireType} is not used by events`);
    (fields[field] ??= []).push(value);
  }
  return fields;
}

const view = (bytes) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The complete records of a TFRecord stream, both CRCs checked (a wrong one throws InvalidArgument); a tail too
 * short for the next record — a file whose writer was killed mid-record — is left out.
 */
export function readRecords(bytes) {
  const records = [];
  for (let at = 0; at + 12 <= bytes.length;) {
    const length = Number(view(bytes).getBigUint64(at, true));
    if (view(bytes).getUint32(at + 8, true) !== maskedCrc32c(bytes.subarray(at, at + 8)))
      throw new InvalidArgument(`event file: the length CRC of the record at byte ${at} is wrong`);
    if (at + 16 + length > bytes.length) break;
    const data = bytes.subarray(at + 12, at + 12 + length);
    if (view(bytes).getUint32(at + 12 + length, true) !== maskedCrc32c(data))
      throw new InvalidArgument(`event file: the data CRC of the record at byte ${at} is wrong`);
    records.push(data);
    at += 16 + length;
  }
  return records;
}

/**
 * The events of an event file, as far as Tracelab writes them: {wallTime, step} plus fileVersion, or hasGraph and
 * graphDef (the serialized GraphDef), or tag, plugin and value (a scalar: a number; a histogram: [left, right, count]
 * rows).
 */
export function readEvents(bytes) {
  const text = (b) => new TextDecoder().decode(b);
  const one = (fields, n) => fields[n]?.[0];
  return readRecords(bytes).map((record) => {
    const e = decodeMessage(record);
    const event = { wallTime: e[1] ? view(one(e, 1)).getFloat64(0, true) : 0, step: Number(BigInt.asIntN(64, one(e, 2) ?? 0n)) };
    if (e[3]) event.fileVersion = text(one(e, 3));
    if (e[4]) {
      event.hasGraph = true;
      event.graphDef = new Uint8Array(one(e, 4));  // a copy, a plain Uint8Array also when `bytes` is a Buffer
    }
    if (e[5]) {
      const value = decodeMessage(one(decodeMessage(one(e, 5)), 1));
      event.tag = text(one(value, 1));
      event.plugin = value[9] ? text(one(decodeMessage(one(decodeMessage(one(value, 9)), 1)), 1) ?? new Uint8Array()) : '';
      const tensor = decodeMessage(one(value, 8) ?? new Uint8Array());
      if (tensor[5]) event.value = view(one(tensor, 5)).getFloat32(0, true);
      if (tensor[6]) {
        const doubles = one(tensor, 6);
        const flat = Array.from({ length: doubles.length / 8 }, (_, i) => view(doubles).getFloat64(8 * i, true));
        event.value = Array.from({ length: flat.length / 3 }, (_, i) => flat.slice(3 * i, 3 * i + 3));
      } else if (event.plugin === 'histograms') event.value = [];
    }
    return event;
  });
}
