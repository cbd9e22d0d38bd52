import fs from "node:fs";

/**
 * Writes a tiny Llama-architecture GGUF with random weights (one block, 32 dimensions, a
 * byte-fallback SentencePiece vocabulary): a real model file that node-llama-cpp loads and
 * generates from in milliseconds. Its text is gibberish; what it exercises is the real path:
 * load, context, chat template, streamed chunks, stop reasons, token counts, abort.
 */

const GGUF_VERSION = 3;
const ALIGNMENT_BYTES = 32;
const EMBEDDING = 32;
const FEED_FORWARD = 64;
const HEADS = 2;

type Value =
  | { type: "u32"; value: number }
  | { type: "f32"; value: number }
  | { type: "string"; value: string }
  | { type: "strings"; value: string[] }
  | { type: "f32s"; value: number[] }
  | { type: "i32s"; value: number[] };

const TYPE_IDS = { u32: 4, i32: 5, f32: 6, string: 8, array: 9 } as const;

class Writer {
  private chunks: Buffer[] = [];
  length = 0;
  push(buffer: Buffer) {
    this.chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number) {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32LE(value);
    this.push(buffer);
  }
  u64(value: number) {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt(value));
    this.push(buffer);
  }
  string(value: string) {
    const bytes = Buffer.from(value, "utf8");
    this.u64(bytes.length);
    this.push(bytes);
  }
  padTo(alignment: number) {
    const extra = (alignment - (this.length % alignment)) % alignment;
    if (extra > 0) this.push(Buffer.alloc(extra));
  }
  toBuffer() {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(writer: Writer, value: Value) {
  const array = (elementType: number, count: number, write: (index: number) => void) => {
    writer.u32(TYPE_IDS.array);
    writer.u32(elementType);
    writer.u64(count);
    for (let index = 0; index < count; index += 1) write(index);
  };
  if (value.type === "u32") {
    writer.u32(TYPE_IDS.u32);
    writer.u32(value.value);
  } else if (value.type === "f32") {
    writer.u32(TYPE_IDS.f32);
    const buffer = Buffer.alloc(4);
    buffer.writeFloatLE(value.value);
    writer.push(buffer);
  } else if (value.type === "string") {
    writer.u32(TYPE_IDS.string);
    writer.string(value.value);
  } else if (value.type === "strings") {
    array(TYPE_IDS.string, value.value.length, (index) => writer.string(value.value[index] ?? ""));
  } else {
    const numbers = value.value;
    array(value.type === "f32s" ? TYPE_IDS.f32 : TYPE_IDS.i32, numbers.length, (index) => {
      const buffer = Buffer.alloc(4);
      if (value.type === "f32s") buffer.writeFloatLE(numbers[index] ?? 0);
      else buffer.writeInt32LE(numbers[index] ?? 0);
      writer.push(buffer);
    });
  }
}

/** A SentencePiece vocabulary: unknown, begin, end, the 256 byte tokens, and a few words. */
function vocabulary() {
  const words = ["▁the", "▁warranty", "▁two", "▁years", "▁is", "▁a", "e", "s", "t", "▁"];
  const tokens = ["<unk>", "<s>", "</s>", ...Array.from({ length: 256 }, (_, byte) => `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`), ...words];
  const types = tokens.map((_, index) => (index === 0 ? 2 : index < 3 ? 3 : index < 259 ? 6 : 1));
  const scores = tokens.map((_, index) => (index < 259 ? 0 : -index));
  return { tokens, types, scores };
}

/** Deterministic small random weights, so every run loads the same model. */
function randomFloats(count: number, seed: number, scale: number): Float32Array {
  const values = new Float32Array(count);
  let state = seed >>> 0;
  for (let index = 0; index < count; index += 1) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    values[index] = ((state / 0xffffffff) * 2 - 1) * scale;
  }
  return values;
}

export function writeTinyGguf(filePath: string): void {
  const { tokens, types, scores } = vocabulary();
  const vocabularySize = tokens.length;
  const metadata: Array<[string, Value]> = [
    ["general.architecture", { type: "string", value: "llama" }],
    ["general.name", { type: "string", value: "chunkpad-tiny-test" }],
    ["general.alignment", { type: "u32", value: ALIGNMENT_BYTES }],
    ["llama.context_length", { type: "u32", value: 512 }],
    ["llama.embedding_length", { type: "u32", value: EMBEDDING }],
    ["llama.block_count", { type: "u32", value: 1 }],
    ["llama.feed_forward_length", { type: "u32", value: FEED_FORWARD }],
    ["llama.attention.head_count", { type: "u32", value: HEADS }],
    ["llama.attention.head_count_kv", { type: "u32", value: HEADS }],
    ["llama.rope.dimension_count", { type: "u32", value: EMBEDDING / HEADS }],
    ["llama.attention.layer_norm_rms_epsilon", { type: "f32", value: 1e-5 }],
    ["tokenizer.ggml.model", { type: "string", value: "llama" }],
    ["tokenizer.ggml.tokens", { type: "strings", value: tokens }],
    ["tokenizer.ggml.scores", { type: "f32s", value: scores }],
    ["tokenizer.ggml.token_type", { type: "i32s", value: types }],
    ["tokenizer.ggml.bos_token_id", { type: "u32", value: 1 }],
    ["tokenizer.ggml.eos_token_id", { type: "u32", value: 2 }],
    ["tokenizer.ggml.unknown_token_id", { type: "u32", value: 0 }],
  ];
  const ones = (count: number) => new Float32Array(count).fill(1);
  // GGUF dimensions are innermost first: a [rows x columns] matrix is written as [columns, rows].
  const tensors: Array<{ name: string; dims: number[]; data: Float32Array }> = [
    { name: "token_embd.weight", dims: [EMBEDDING, vocabularySize], data: randomFloats(EMBEDDING * vocabularySize, 1, 0.5) },
    { name: "output_norm.weight", dims: [EMBEDDING], data: ones(EMBEDDING) },
    { name: "output.weight", dims: [EMBEDDING, vocabularySize], data: randomFloats(EMBEDDING * vocabularySize, 2, 0.5) },
    { name: "blk.0.attn_norm.weight", dims: [EMBEDDING], data: ones(EMBEDDING) },
    { name: "blk.0.attn_q.weight", dims: [EMBEDDING, EMBEDDING], data: randomFloats(EMBEDDING * EMBEDDING, 3, 0.2) },
    { name: "blk.0.attn_k.weight", dims: [EMBEDDING, EMBEDDING], data: randomFloats(EMBEDDING * EMBEDDING, 4, 0.2) },
    { name: "blk.0.attn_v.weight", dims: [EMBEDDING, EMBEDDING], data: randomFloats(EMBEDDING * EMBEDDING, 5, 0.2) },
    { name: "blk.0.attn_output.weight", dims: [EMBEDDING, EMBEDDING], data: randomFloats(EMBEDDING * EMBEDDING, 6, 0.2) },
    { name: "blk.0.ffn_norm.weight", dims: [EMBEDDING], data: ones(EMBEDDING) },
    { name: "blk.0.ffn_gate.weight", dims: [EMBEDDING, FEED_FORWARD], data: randomFloats(EMBEDDING * FEED_FORWARD, 7, 0.2) },
    { name: "blk.0.ffn_up.weight", dims: [EMBEDDING, FEED_FORWARD], data: randomFloats(EMBEDDING * FEED_FORWARD, 8, 0.2) },
    { name: "blk.0.ffn_down.weight", dims: [FEED_FORWARD, EMBEDDING], data: randomFloats(EMBEDDING * FEED_FORWARD, 9, 0.2) },
  ];

  const writer = new Writer();
  writer.push(Buffer.from("GGUF", "latin1"));
  writer.u32(GGUF_VERSION);
  writer.u64(tensors.length);
  writer.u64(metadata.length);
  for (const [key, value] of metadata) {
    writer.string(key);
    writeValue(writer, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const tensor of tensors) {
    writer.string(tensor.name);
    writer.u32(tensor.dims.length);
    for (const dimension of tensor.dims) writer.u64(dimension);
    writer.u32(0); // F32
    writer.u64(offset);
    offsets.push(offset);
    offset += Math.ceil((tensor.data.byteLength) / ALIGNMENT_BYTES) * ALIGNMENT_BYTES;
  }
  writer.padTo(ALIGNMENT_BYTES);
  for (const tensor of tensors) {
    writer.push(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    writer.padTo(ALIGNMENT_BYTES);
  }
  fs.writeFileSync(filePath, writer.toBuffer());
}
