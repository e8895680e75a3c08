#!/usr/bin/env python3
"""Summarises an `engram bench locomo|longmemeval --trace` file (docs/BENCHMARKS.md).

Prints, for the user recall (default k and budget): CPU and wall-clock percentiles (linear
interpolation, as engram bench) and the median time of each stage; then where the gold turns
went (packed / in top k / ranked out / never retrieved), overall and per category; then, for the
gold turns missing from the evaluated top k, whether they sit next to (same session, turn +-1) or
in the same session as a top-10 turn -- what neighbour and session expansion could recover.

    python3 bench/trace_summary.py locomo.trace.jsonl
Standard library only.
"""
import collections
import json
import sys


def percentile(values, p):
    values = sorted(values)
    if not values:
        return 0.0
    position = p / 100 * (len(values) - 1)
    lower = int(position)
    upper = min(lower + 1, len(values) - 1)
    return values[lower] + (values[upper] - values[lower]) * (position - lower)


def session_and_turn(key):
    """'D1:3' -> ('D1', 3); 'answer_4be1b6b4_2:3' -> ('answer_4be1b6b4_2', 3)."""
    session, _, turn = key.rpartition(':')
    return (session, int(turn)) if turn.isdigit() else (key, None)


def summarise(path):
    cpu, wall, stages = [], [], collections.defaultdict(list)
    status = collections.Counter()
    by_category = collections.defaultdict(collections.Counter)
    missed = collections.Counter()
    questions = 0
    with open(path, encoding='utf-8') as trace:
        for line in trace:
            record = json.loads(line)
            questions += 1
            user = record['recalls']['user']
            cpu.append(user.get('cpu_ms', 0.0))
            wall.append(user['latency_ms'])
            for timing in user['timings']:
                stages[timing['stage']].append(timing['ms'])
            top10 = [session_and_turn(key) for key in record['ranking'][:10]]
            for gold in record['gold_turns']:
                status[gold['status']] += 1
                by_category[str(record.get('category_name'))][gold['status']] += 1
                if gold['status'] not in ('never_retrieved', 'ranked_out') or not gold.get('in_data'):
                    continue
                session, turn = session_and_turn(gold['key'])
                if turn is not None and any(s == session and t is not None and abs(t - turn) == 1
                                            for s, t in top10):
                    missed['neighbour of a top-10 turn'] += 1
                elif any(s == session for s, _ in top10):
                    missed['same session as a top-10 turn'] += 1
                else:
                    missed['elsewhere'] += 1
    print(f'{path}: {questions} questions')
    print('user recall cpu_ms  p50 %.3f  p95 %.3f  p99 %.3f' % tuple(percentile(cpu, p) for p in (50, 95, 99)))
    print('user recall wall_ms p50 %.3f  p95 %.3f  p99 %.3f' % tuple(percentile(wall, p) for p in (50, 95, 99)))
    print('median stage ms: ' + ', '.join(f'{stage} {percentile(ms, 50):.3f}' for stage, ms in stages.items()))
    total = sum(status.values())
    print(f'gold turns: {total}')
    for category, counts in [('all', status)] + sorted(by_category.items()):
        n = sum(counts.values())
        cells = '  '.join(f'{name} {counts[name] / n:.1%}' for name in
                          ('packed', 'in_top_k', 'ranked_out', 'never_retrieved'))
        print(f'  {category:<26} {n:5d}  {cells}')
    print('gold turns missing from the top k: ' +
          ', '.join(f'{where} {count}' for where, count in missed.most_common()))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: trace_summary.py TRACE.jsonl [...]')
    for trace_path in sys.argv[1:]:
        summarise(trace_path)
