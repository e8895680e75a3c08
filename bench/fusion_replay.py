#!/usr/bin/env python3
"""Replays the fusion of an `engram bench locomo|longmemeval --trace` file under other route
weights or another RRF k, without running the engine again (docs/BENCHMARKS.md).

Each trace line holds every route's candidates with their ranks, the plan's route weights and,
for every fused candidate, its adjustments in the order they were applied (a factor and a
bonus each). The replay recomputes weighted reciprocal rank fusion (src/read/fusion.h) with the
changed weights, applies the recorded adjustments in order (score = score x factor + bonus),
sorts, and scores the new ranking: LoCoMo Recall@10 (the share of a question's gold turns in the
top 10) and MRR@30 (of its first gold turn); LongMemEval also session recall_all@5 and turn
recall_all@10. With no change it reproduces the trace's scores, which it checks first.

It is an approximation: the bonuses (neighbour expansion, entity bridge) stay what they were,
although the engine would compute them from the new scores, and candidates that a filter took
out stay out. Use it to find which weights are worth a real run, not to report results.

    python3 bench/fusion_replay.py TRACE [--weight ROUTE=FACTOR ...] [--rrf-k K]
        [--trace-rrf-k K] [--group NAME=ID,ID ...]

--weight multiplies a route's weight in every question's plan; --rrf-k is the k to replay with
and --trace-rrf-k the k the trace was written with ([recall] rrf_k, 20 by default); --group
reports the questions of the named conversations (LoCoMo) or question ids apart, e.g. the
halves of the Protocol: --group A=conv-26,conv-30,conv-41 --group B=conv-42,conv-43.
Standard library only.
"""
import argparse
import collections
import json
import sys


def fused(ranks, weights, multipliers, k):
    return sum(weights.get(route, 1.0) * multipliers.get(route, 1.0) / (k + rank)
               for route, rank in ranks.items())


def replay(line, multipliers, k):
    """The candidates' turn lists, best first, and each candidate's replayed score."""
    weights = {run['route']: run['weight'] for run in line['plan']['routes']}
    ranks = collections.defaultdict(dict)
    for route, candidates in line['candidates'].items():
        for candidate in candidates:
            ranks[candidate['id']][route] = candidate['rank']
    scored = []
    for candidate in line['fused']:
        score = fused(ranks[candidate['id']], weights, multipliers, k)
        for adjustment in candidate.get('adjustments', []):
            score = score * adjustment['factor'] + adjustment['bonus']
        scored.append((-score, candidate['id'], candidate['turns']))
    scored.sort()
    return [turns for _, _, turns in scored], {id_: -score for score, id_, _ in scored}


def metrics(line, ranking):
    gold = {turn['key'] for turn in line['gold_turns']}
    top10 = {turn for turns in ranking[:10] for turn in turns}
    result = {'R@10': len(gold & top10) / len(gold), 'MRR@30': 0.0}
    for rank, turns in enumerate(ranking[:30], 1):
        if gold & set(turns):
            result['MRR@30'] = 1 / rank
            break
    if 'answer_session_ids' in line:  # LongMemEval
        sessions = []
        for turns in ranking:
            for turn in turns:
                session = turn.rpartition(':')[0]
                if session not in sessions:
                    sessions.append(session)
        result['session all@5'] = float(set(line['answer_session_ids']) <= set(sessions[:5]))
        result['turn all@10'] = float(gold <= top10)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('trace')
    parser.add_argument('--weight', action='append', default=[], metavar='ROUTE=FACTOR')
    parser.add_argument('--rrf-k', type=float, default=None)
    parser.add_argument('--trace-rrf-k', type=float, default=20.0)
    parser.add_argument('--group', action='append', default=[], metavar='NAME=ID,ID')
    args = parser.parse_args()
    multipliers = {}
    for item in args.weight:
        route, _, factor = item.partition('=')
        multipliers[route] = float(factor)
    groups = {}
    for item in args.group:
        name, _, ids = item.partition('=')
        groups.update({id_: name for id_ in ids.split(',')})
    k = args.rrf_k if args.rrf_k is not None else args.trace_rrf_k

    totals = collections.defaultdict(lambda: collections.defaultdict(float))
    counts = collections.Counter()
    mismatched = 0
    with open(args.trace, encoding='utf-8') as trace:
        for text in trace:
            line = json.loads(text)
            if not line['gold_turns']:
                continue
            _, replayed = replay(line, {}, args.trace_rrf_k)
            mismatched += any(abs(replayed[c['id']] - c['score']) > 1e-9 * max(1, abs(c['score']))
                              for c in line['fused'])
            ranking, _ = replay(line, multipliers, k)
            names = ['all']
            for id_ in (line.get('conversation', ''), line['question_id']):
                if id_ in groups:
                    names.append(groups[id_])
            for name in names:
                counts[name] += 1
                for metric, value in metrics(line, ranking).items():
                    totals[name][metric] += value
    if mismatched:
        print(f'warning: {mismatched} questions do not replay to their traced scores '
              '(another --trace-rrf-k? a trace from an older engine?)', file=sys.stderr)
    for name in ['all'] + sorted(set(groups.values())):
        if counts[name]:
            print(f'{name:6s} n={counts[name]:4d} ' + '  '.join(
                f'{metric} {value / counts[name]:.3f}' for metric, value in totals[name].items()))


if __name__ == '__main__':
    main()
