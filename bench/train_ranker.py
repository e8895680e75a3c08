#!/usr/bin/env python3
"""Trains engram's learned ranker (src/read/learned_ranker.h) from bench traces and writes the
model file engram ships (src/read/ranker/model.json and its digest), with a training report.

The traces come from the benchmark harness on the dev files, which writes every fused
candidate's ranking features (src/read/rank_features.h):

    engram bench locomo --data locomo_dev.json --trace locomo.trace.jsonl
    engram bench longmemeval --data longmemeval_s_dev60.json.zst --trace lme60.trace.jsonl
    engram bench longmemeval --data longmemeval_s_dev200.json.zst --trace lme200.trace.jsonl

    python3 bench/train_ranker.py locomo.trace.jsonl lme60.trace.jsonl lme200.trace.jsonl \
        --model src/read/ranker/model.json --report ranker-report.json

(the traces must come from `[recall] ranker = "fusion"`, the order the model learns to re-rank).
A candidate is relevant when it holds a gold evidence turn. Each question's candidates within
the depth form one query group of a LambdaMART model (xgboost's rank:ndcg), trained with
cross-validation across conversations (LoCoMo: leave one conversation out) and across questions
(LongMemEval: question folds, per file). Hyper-parameters are chosen only by that
cross-validation: the grid's setting with the best mean gain over the fused order (the mean of
LoCoMo R@10, LoCoMo MRR@30 and LongMemEval session recall_all@5, each averaged over its
held-out folds). The final model is trained on all the traces with that setting.

Determinism: one thread and a fixed seed make xgboost's trees the same on every
run, and the model file is written with sorted keys and the shortest exact float text, so the
same traces give the same bytes (tests/ranker checks this on a small sample).

Needs python3-xgboost and numpy (Debian packages).
"""
import argparse
import collections
import hashlib
import json
import math
import os
import sys

import numpy as np
import xgboost as xgb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fusion_replay import metrics  # noqa: E402  (one definition of the bench's metrics)

FORMAT = 'engram-ranker'
MODEL_VERSION = 1
FEATURE_SET = 1  # read/rank_features.h kFeatureSetVersion
DEPTH = 100      # [recall] ranker_depth
# The dev protocol's two LoCoMo halves (docs/BENCHMARKS.md), reported apart.
LOCOMO_HALVES = {'conv-26': 'A', 'conv-30': 'A', 'conv-41': 'A', 'conv-42': 'B', 'conv-43': 'B'}
GRID = [
    {'max_depth': depth, 'num_boost_round': rounds, 'eta': 0.1, 'min_child_weight': 1}
    for depth in (4, 6) for rounds in (100, 300)
]


def open_trace(path):
    if path.endswith('.zst'):
        import subprocess
        data = subprocess.run(['zstd', '-dc', path], check=True, capture_output=True).stdout
        return [line for line in data.decode('utf-8').split('\n') if line]
    with open(path, encoding='utf-8') as handle:
        return [line for line in handle.read().split('\n') if line]


class Question:
    """One traced question: its candidates (features, relevance), its trace line's scoring
    fields, and the fold key it is held out with."""

    def __init__(self, line, source):
        self.line = {key: line[key] for key in ('gold_turns', 'answer_session_ids') if key in line}
        self.id = line['question_id']
        self.dataset = line.get('dataset', 'locomo')
        self.source = source
        self.category = str(line.get('category_name', ''))
        self.conversation = line.get('conversation', '')
        gold = {turn['key'] for turn in line['gold_turns']}
        self.turns = [candidate['turns'] for candidate in line['fused']]
        # The fused pool's size (before the filters), for the model's range of use.
        self.pool = line.get('plan', {}).get('fused_candidates', len(self.turns))
        rows = []
        for candidate in line['fused'][:DEPTH]:
            if 'features' not in candidate:
                break
            rows.append([math.nan if value is None else float(value)
                         for value in candidate['features']])
        self.features = np.array(rows, dtype=np.float64).reshape(len(rows), -1)
        self.labels = np.array([1.0 if gold & set(turns) else 0.0
                                for turns in self.turns[:len(rows)]])

    def ranking(self, scores=None):
        """The candidates' turn lists best first: the first len(scores) re-ordered by score
        (ties keep their order), the rest as traced."""
        if scores is None:
            return self.turns
        order = sorted(range(len(scores)), key=lambda index: (-scores[index], index))
        return [self.turns[index] for index in order] + self.turns[len(scores):]

    def scores(self, scores=None):
        return metrics(self.line, self.ranking(scores))


def load(paths):
    questions, names = [], None
    for path in paths:
        source = os.path.basename(path).split('.')[0]
        for text in open_trace(path):
            line = json.loads(text)
            if not line.get('gold_turns'):
                continue
            line_names = line.get('plan', {}).get('feature_names')
            if line_names is None:
                raise SystemExit(f'{path}: the trace has no feature_names; run the bench with '
                                 'an engram that writes ranking features')
            if names is None:
                names = line_names
            elif names != line_names:
                raise SystemExit(f'{path}: feature names differ from the first trace\'s')
            questions.append(Question(line, source))
    return questions, names


def folds(questions, count=5):
    """Fold index per question: LoCoMo by conversation, LongMemEval by question id hash."""
    conversations = sorted({q.conversation for q in questions if q.dataset == 'locomo'})
    result = []
    for question in questions:
        if question.dataset == 'locomo':
            result.append(conversations.index(question.conversation) % count)
        else:
            digest = hashlib.sha256(question.id.encode()).digest()
            result.append(digest[0] % count)
    return result


def matrix(questions):
    features = np.vstack([q.features for q in questions if len(q.features)])
    labels = np.concatenate([q.labels for q in questions if len(q.features)])
    groups = [len(q.features) for q in questions if len(q.features)]
    data = xgb.DMatrix(features, label=labels, missing=np.nan)
    data.set_group(groups)
    return data


def train(questions, setting):
    params = {
        'objective': 'rank:ndcg', 'eval_metric': 'ndcg@10', 'max_depth': setting['max_depth'],
        'eta': setting['eta'], 'min_child_weight': setting['min_child_weight'],
        'tree_method': 'hist', 'nthread': 1, 'seed': 0, 'base_score': 0.5,
    }
    return xgb.train(params, matrix(questions), num_boost_round=setting['num_boost_round'])


def predict(booster, question):
    if not len(question.features):
        return None
    data = xgb.DMatrix(question.features, missing=np.nan)
    return booster.predict(data, output_margin=True).astype(np.float64)


def summarize(questions, predictions):
    """Per dataset and category: the fused order's metrics and the model's."""
    totals = collections.defaultdict(lambda: collections.defaultdict(float))
    counts = collections.Counter()
    for question, scores in zip(questions, predictions):
        groups = [question.source, f'{question.source}/{question.category}']
        if question.conversation in LOCOMO_HALVES:
            groups.append(f'{question.source}/half {LOCOMO_HALVES[question.conversation]}')
        for group in groups:
            counts[group] += 1
            for name, value in question.scores().items():
                totals[group]['fusion ' + name] += value
            for name, value in question.scores(scores).items():
                totals[group]['learned ' + name] += value
    return {group: {'questions': counts[group],
                    **{name: round(value / counts[group], 4)
                       for name, value in sorted(totals[group].items())}}
            for group in sorted(counts)}


def objective(summary):
    """The mean gain the grid search maximises (see the module docstring)."""
    gains = []
    for group, figures in summary.items():
        if '/' in group:
            continue
        if group.startswith('locomo'):
            gains.append(figures['learned R@10'] - figures['fusion R@10'])
            gains.append(figures['learned MRR@30'] - figures['fusion MRR@30'])
        else:
            gains.append(figures['learned session all@5'] - figures['fusion session all@5'])
    return sum(gains) / len(gains)


def cross_validate(questions, setting, fold_of, names=None, fold_dir=None):
    """The held-out figures; with fold_dir, each fold's model is written there too
    (fold-N.json) with the questions it holds out (fold-N.locomo: conversations, fold-N.SOURCE:
    question ids), so the engine itself can be run on them."""
    predictions = [None] * len(questions)
    for fold in sorted(set(fold_of)):
        training = [q for q, f in zip(questions, fold_of) if f != fold]
        booster = train(training, setting)
        if fold_dir:
            with open(os.path.join(fold_dir, f'fold-{fold}.json'), 'w', encoding='utf-8') as out:
                out.write(dumps(export(booster, names)))
            held = collections.defaultdict(set)
            for question, f in zip(questions, fold_of):
                if f == fold:
                    held[question.source].add(question.conversation if question.dataset ==
                                              'locomo' else question.id)
            for source, ids in held.items():
                with open(os.path.join(fold_dir, f'fold-{fold}.{source}'), 'w',
                          encoding='utf-8') as out:
                    out.write(','.join(sorted(ids)) + '\n')
        for index, (question, f) in enumerate(zip(questions, fold_of)):
            if f == fold:
                predictions[index] = predict(booster, question)
    return summarize(questions, predictions)


def exact_float(value):
    """The shortest decimal text of a double; floats that came from 32-bit values stay exact."""
    return float(repr(float(value)))


def export(booster, names):
    """engram's model format (read/learned_ranker.h) from xgboost's JSON model."""
    raw = json.loads(booster.save_raw('json').decode('utf-8'))
    learner = raw['learner']
    base_score = float(learner['learner_model_param']['base_score'])
    trees = []
    for tree in learner['gradient_booster']['model']['trees']:
        left, right = tree['left_children'], tree['right_children']
        conditions, indices = tree['split_conditions'], tree['split_indices']
        hessian = tree['sum_hessian']
        size = len(left)
        # Re-number the nodes breadth first so children always follow their parent.
        order, position = [0], {0: 0}
        for node in order:
            if left[node] != -1:
                for child in (left[node], right[node]):
                    position[child] = len(order)
                    order.append(child)
        value = [0.0] * size
        for node in reversed(order):  # children before parents
            if left[node] == -1:
                value[node] = float(np.float32(conditions[node]))
            else:
                l_h, r_h = hessian[left[node]], hessian[right[node]]
                total = l_h + r_h
                value[node] = ((value[left[node]] * l_h + value[right[node]] * r_h) / total
                               if total > 0 else 0.0)
        out = {'feature': [], 'threshold': [], 'left': [], 'right': [], 'default_left': [],
               'value': []}
        for node in order:
            leaf = left[node] == -1
            out['feature'].append(-1 if leaf else int(indices[node]))
            out['threshold'].append(0.0 if leaf else exact_float(np.float32(conditions[node])))
            out['left'].append(-1 if leaf else position[left[node]])
            out['right'].append(-1 if leaf else position[right[node]])
            out['default_left'].append(int(tree['default_left'][node]))
            out['value'].append(exact_float(round(value[node], 9) if not leaf else value[node]))
        trees.append(out)
    return {'format': FORMAT, 'version': MODEL_VERSION, 'feature_set': FEATURE_SET,
            'features': names, 'base_score': base_score, 'trees': trees}


def reference_score(model, features):
    """The model's score as engram computes it: 32-bit comparisons, NaN to the default side,
    leaves summed in double in tree order."""
    score = model['base_score']
    for tree in model['trees']:
        node = 0
        while tree['feature'][node] >= 0:
            value = features[tree['feature'][node]]
            if math.isnan(value):
                go_left = tree['default_left'][node] == 1
            else:
                go_left = np.float32(value) < np.float32(tree['threshold'][node])
            node = tree['left'][node] if go_left else tree['right'][node]
        score += tree['value'][node]
    return score


def dumps(data):
    return json.dumps(data, sort_keys=True, separators=(',', ':')) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('traces', nargs='+')
    parser.add_argument('--model', required=True, help='model file to write')
    parser.add_argument('--report', help='training report (JSON) to write')
    parser.add_argument('--setting', help='skip the grid: a JSON hyper-parameter setting')
    parser.add_argument('--fold-models', metavar='DIR', help='write each cross-validation '
                        'fold\'s model and held-out questions there')
    parser.add_argument('--sample', help='also write a sample of feature vectors and the '
                        'model\'s scores of them (for the C++ inference test)')
    args = parser.parse_args()

    questions, names = load(args.traces)
    print(f'{len(questions)} questions, {sum(len(q.features) for q in questions)} candidates, '
          f'{len(names)} features', file=sys.stderr)
    fold_of = folds(questions)
    report = {'traces': [os.path.basename(path) for path in args.traces], 'depth': DEPTH,
              'questions': len(questions), 'grid': []}
    if args.setting:
        best = json.loads(args.setting)
    else:
        best, best_gain = None, -math.inf
        for setting in GRID:
            summary = cross_validate(questions, setting, fold_of)
            gain = objective(summary)
            print(f'{json.dumps(setting)} mean CV gain {gain:+.4f}', file=sys.stderr)
            report['grid'].append({'setting': setting, 'gain': round(gain, 5)})
            if gain > best_gain:
                best, best_gain = setting, gain
    report['setting'] = best
    if args.fold_models:
        os.makedirs(args.fold_models, exist_ok=True)
    report['cross_validation'] = cross_validate(questions, best, fold_of, names,
                                                args.fold_models)
    booster = train(questions, best)
    model = export(booster, names)
    # engram uses the model only on pools at least as large as the smallest it learned from.
    model['training'] = {'setting': best, 'depth': DEPTH, 'questions': len(questions),
                         'traces': report['traces'], 'min_pool': min(q.pool for q in questions)}

    # engram's traversal must give xgboost's scores (xgboost sums leaves in 32 bits).
    worst = 0.0
    for question in questions[:200]:
        if not len(question.features):
            continue
        expected = predict(booster, question)
        for row, want in zip(question.features, expected):
            worst = max(worst, abs(reference_score(model, row) - want))
    if worst > 1e-3:
        raise SystemExit(f'the exported model scores differ from xgboost\'s by {worst}')
    importance = booster.get_score(importance_type='total_gain')
    report['importance'] = [[names[int(key[1:])], round(value, 3)] for key, value in
                            sorted(importance.items(), key=lambda item: (-item[1], item[0]))]

    text = dumps(model)
    with open(args.model, 'w', encoding='utf-8') as handle:
        handle.write(text)
    digest = hashlib.sha256(text.encode('utf-8')).hexdigest()
    with open(os.path.splitext(args.model)[0] + '.sha256', 'w', encoding='utf-8') as handle:
        handle.write(f'{digest}  {os.path.basename(args.model)}\n')
    report['model_sha256'] = digest
    if args.report:
        with open(args.report, 'w', encoding='utf-8') as handle:
            handle.write(json.dumps(report, indent=1, sort_keys=True) + '\n')
    if args.sample:
        sample = []
        for question in questions[::max(1, len(questions) // 20)][:20]:
            for row in question.features[:10]:
                features = [None if math.isnan(value) else value for value in row.tolist()]
                sample.append({'features': features, 'score': reference_score(model, row)})
        with open(args.sample, 'w', encoding='utf-8') as handle:
            handle.write(dumps({'model_sha256': digest, 'rows': sample}))
    cv = report['cross_validation']
    for group in sorted(cv):
        if '/' not in group:
            print(group, json.dumps(cv[group]), file=sys.stderr)
    print(f'wrote {args.model} (sha256 {digest[:12]})', file=sys.stderr)


if __name__ == '__main__':
    main()
