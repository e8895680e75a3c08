#!/usr/bin/env python3
"""bench/train_ranker.py trains the same model bytes twice from the sample traces, the bytes
the recorded digest names, and engram's traversal of that model gives xgboost's scores.

    train_ranker_test.py TRAIN_RANKER_PY TEST_DIR

After an intended change to the training (the script, the setting below, or xgboost), rewrite
the digest with ENGRAM_UPDATE_GOLDEN=1 and review the model difference.
"""
import hashlib
import os
import subprocess
import sys
import tempfile

SETTING = '{"eta": 0.1, "max_depth": 3, "min_child_weight": 1, "num_boost_round": 20}'


def main():
    script, test_dir = sys.argv[1], sys.argv[2]
    try:
        import xgboost  # noqa: F401
    except ImportError:
        if os.environ.get('ENGRAM_REQUIRE_BENCH_DATA') == '1':
            print('python3-xgboost is not installed (scripts/setup installs it)')
            return 1
        print('skipped: python3-xgboost is not installed (scripts/setup installs it)')
        return 77
    trace = os.path.join(test_dir, 'sample.trace.jsonl')
    digests = []
    with tempfile.TemporaryDirectory() as work:
        for run in range(2):
            model = os.path.join(work, f'run{run}', 'model.json')
            os.makedirs(os.path.dirname(model))
            done = subprocess.run([sys.executable, script, trace, '--model', model,
                                   '--report', os.path.join(work, f'run{run}', 'report.json'),
                                   '--setting', SETTING], capture_output=True, text=True)
            if done.returncode != 0:
                print(done.stdout, done.stderr)
                print(f'FAIL: the training script exited with {done.returncode}')
                return 1
            with open(model, 'rb') as handle:
                digests.append(hashlib.sha256(handle.read()).hexdigest())
            with open(os.path.splitext(model)[0] + '.sha256', encoding='utf-8') as handle:
                if not handle.read().startswith(digests[-1] + '  model.json'):
                    print('FAIL: model.sha256 does not name the model written')
                    return 1
    if digests[0] != digests[1]:
        print(f'FAIL: two runs gave different models: {digests[0]} {digests[1]}')
        return 1
    expected_path = os.path.join(test_dir, 'expected.sha256')
    if os.environ.get('ENGRAM_UPDATE_GOLDEN') == '1':
        with open(expected_path, 'w', encoding='utf-8') as handle:
            handle.write(digests[0] + '\n')
        print(f'skipped: rewrote {expected_path}; review and commit it')
        return 77
    with open(expected_path, encoding='utf-8') as handle:
        expected = handle.read().strip()
    if digests[0] != expected:
        print(f'FAIL: the model is {digests[0]}, expected {expected} ({expected_path})')
        return 1
    print(f'ok: the sample model is {expected} on both runs')
    return 0


if __name__ == '__main__':
    sys.exit(main())
