#!/usr/bin/env node
// test_perf_cli.mjs - cuzk-bench synth, micro and timeline, run as a user runs them; their
// output is checked (unit label: no parameters, no daemon).
//
//   micro     every kernel at a small size: one bench-format line per case, n = 2^log-n,
//             iters = --repeat, min <= median <= max (a spread is reported); the kernels' own
//             result checks pass; --gpu works on a GPU machine and fails cleanly without one;
//             --memmon writes 100 ms samples whose maximum is the printed peak, at least the
//             first (idle) sample; bad usage exits 2.
//   synth     2 KiB WindowPoSt, WinningPoSt and PoRep vanilla proofs from gen-vanilla through
//             the daemon's handlers: per run synthesis + finish <= total, repeated runs
//             report min <= median <= max and a spread, the prover and counter backends agree
//             on the constraint count, the checker accepts the honest witness, a tampered proof
//             is refused, peak resident memory >= the idle baseline.
//   timeline  a constructed log (3 jobs x 2 partitions, 2 synthesis and 2 prover threads,
//             overlapping queue waits): lanes, one bar per stage line with its attributes,
//             x and width proportional to start and duration, and the per-job table (sum of
//             stages, covered wall time, idle) against values computed here.
// Usage: node test_perf_cli.mjs <cuzk-bench>
import fs from 'node:fs';
import path from 'node:path';
import {
    benchLines, check, finish, kv, run, runOk, svgStructure, testCase, tmpdir,
    writeSyntheticTimeline,
} from './lib.mjs';

const BENCH = process.argv[2];
if (!BENCH) {
    console.error('usage: test_perf_cli.mjs <cuzk-bench>');
    process.exit(2);
}
const DIR = tmpdir('cli');

function checkCases(cases, names, n, iters) {
    check(cases.length === names.length, `cases ${cases.map((c) => c.name)} vs ${names}`);
    cases.forEach((c, i) => {
        check(c.name === names[i], 'case name', c.name, names[i]);
        check(c.n === n && c.iters === iters && c.unit === 'ms', 'n/iters/unit', JSON.stringify(c));
        check(c.min > 0 && c.min <= c.median && c.median <= c.max, 'min <= median <= max', JSON.stringify(c));
    });
}

await testCase('micro_every_kernel', () => {
    const plan = [
        ['ntt', 10, ['ntt']],
        ['coset-ntt', 9, ['coset-ntt'], ['--scalars', 'binary']],
        ['quotient', 10, ['quotient']],
        ['msm-g1', 8, ['msm-g1']],
        ['msm-g2', 6, ['msm-g2'], ['--scalars', 'binary']],
        ['sha256', 10, [/^sha256-compress-/, 'sha256-64']],
        ['poseidon', 5, ['poseidon-2', 'poseidon-8', 'poseidon-11']],
    ];
    for (const [kernel, lg, names, extra = []] of plan) {
        const r = runOk(BENCH, ['micro', kernel, '--log-n', String(lg), '--repeat', '3', '--threads', '2', ...extra]);
        const cases = benchLines(r.out);
        const resolved = names.map((nm, i) => (nm instanceof RegExp ? (nm.test(cases[i]?.name) ? cases[i].name : String(nm)) : nm));
        checkCases(cases, resolved, 2 ** lg, 3);
    }
    // the kernel may also come as --kernel; the warm-up count is accepted
    const r = runOk(BENCH, ['micro', '--kernel', 'ntt', '--log-n', '4', '--repeat', '1', '--warmup', '0']);
    checkCases(benchLines(r.out), ['ntt'], 16, 1);
});

await testCase('micro_gpu_or_clean_refusal', () => {
    const r = run(BENCH, ['micro', 'ntt', '--log-n', '10', '--gpu', '--repeat', '3']);
    if (r.code === 0) {
        const cases = benchLines(r.out);
        checkCases(cases, ['ntt-gpu-h2d', 'ntt-gpu', 'ntt-gpu-d2h', 'ntt-gpu-host'], 1024, 3);
    } else {
        check(r.code === 2 && /no usable GPU/.test(r.err), 'without a GPU: exit 2, "no usable GPU":', r.code, r.err);
    }
    const s = run(BENCH, ['micro', 'sha256', '--log-n', '4', '--gpu']);
    check(s.code === 2 && /no GPU kernel/.test(s.err), 'sha256 --gpu refused', s.err);
});

await testCase('micro_memmon', () => {
    const csv = path.join(DIR, 'micro.csv');
    const r = runOk(BENCH, ['micro', 'msm-g1', '--log-n', '11', '--repeat', '3', '--memmon', csv]);
    const mem = r.out.split('\n').find((l) => l.startsWith('memory '));
    check(mem, 'a memory line', r.out);
    const peak = Number(kv(mem).peak_rss_bytes), samples = Number(kv(mem).samples);
    const rows = fs.readFileSync(csv, 'utf8').trim().split('\n');
    check(rows[0] === 't_ms,rss_bytes', 'CSV header', rows[0]);
    const vals = rows.slice(1).map((l) => l.split(',').map(Number));
    check(vals.length === samples && samples >= 2, `samples ${samples}, rows ${vals.length}`);
    for (let i = 1; i < vals.length; i++) {
        check(vals[i][0] >= vals[i - 1][0], 'times increase');
    }
    if (vals.length >= 3) {
        check(vals[2][0] - vals[1][0] < 400, 'about 100 ms apart', vals[1][0], vals[2][0]);
    }
    const max = Math.max(...vals.map((v) => v[1]));
    check(max === peak, `peak ${peak} is the maximum sample ${max}`);
    check(peak >= vals[0][1] && vals[0][1] > 0, 'peak >= idle (first) sample');
});

await testCase('micro_bad_usage', () => {
    check(run(BENCH, ['micro', 'fft', '--log-n', '4']).code === 2, 'unknown kernel');
    check(run(BENCH, ['micro', 'ntt']).code === 2, 'missing --log-n');
    check(run(BENCH, ['micro', 'ntt', '--log-n', '4', '--scalars', 'odd']).code === 2, 'bad --scalars');
    check(run(BENCH, ['micro', 'msm-g1', '--log-n', '31']).code === 2, 'too large');
    check(runOk(BENCH, ['micro', '--help']).out.includes('--log-n'), '--help');
});

// ---- synth ------------------------------------------------------------------------------------

function genVanilla(kind) {
    const out = path.join(DIR, `${kind}.vp`);
    if (!fs.existsSync(out)) {
        runOk(BENCH, ['gen-vanilla', kind, '--sector-size', '2KiB', '--out', out, '--seed', '5eed']);
    }
    return out;
}

function parseSynth(text) {
    const lines = text.split('\n');
    const head = kv(lines.find((l) => l.startsWith('synth ')));
    const runs = [], rows = [];
    let mode = null;
    for (const l of lines) {
        if (/^partition\s+run\s+/.test(l)) {
            mode = 'runs';
            continue;
        }
        if (/^partition\s+constraints\s+/.test(l)) {
            mode = 'rows';
            continue;
        }
        const f = l.trim().split(/\s+/);
        if (mode === 'runs' && f.length >= 6 && /^\d+$/.test(f[0])) {
            runs.push({ k: +f[0], run: +f[1], synth: +f[2], finish: +f[3], products: +f[4], total: +f[5] });
        } else if (mode === 'rows' && /^\d+$/.test(f[0])) {
            rows.push({
                k: +f[0], constraints: +f[1], aux: +f[2], min: +f[3], median: +f[4], max: +f[5],
                spread: +f[6], rate: +f[7],
            });
        }
    }
    const mem = kv(lines.find((l) => l.startsWith('memory ')));
    return { head, runs, rows, mem };
}

await testCase('synth_window_post_prover', () => {
    const vp = genVanilla('window-post');
    const csv = path.join(DIR, 'synth.csv');
    const r = runOk(BENCH, ['synth', '--type', 'window-post', '--vanilla', vp, '--repeat', '3', '--timing', '--memmon', csv]);
    const s = parseSynth(r.out);
    check(s.head.kind === 'window-post' && s.head.circuit === 'wpost-2k' && s.head.backend === 'prover', r.out);
    check(Number(s.head.partitions) === 1 && Number(s.head.repeat) === 3);
    check(s.runs.length === 3, 'three runs', r.out);
    for (const x of s.runs) {
        // printed with 3 decimals each: allow the rounding of two terms
        check(x.synth + x.finish + x.products <= x.total + 0.003, 'stages <= total', JSON.stringify(x));
        check(x.synth > 0 && x.total > 0);
    }
    check(s.rows.length === 1, r.out);
    const row = s.rows[0];
    const totals = s.runs.map((x) => x.total).sort((a, b) => a - b);
    check(Math.abs(row.min - totals[0]) < 0.0015 && Math.abs(row.max - totals[2]) < 0.0015 &&
        Math.abs(row.median - totals[1]) < 0.0015, 'min/median/max of the runs', JSON.stringify(row), totals);
    check(row.spread >= 0 && Math.abs(row.spread - 100 * (row.max - row.min) / row.median) < 0.1, 'spread %', row.spread);
    check(Math.abs(row.rate - row.constraints / (row.median / 1e3)) / row.rate < 0.01, 'constraints/s', row.rate);
    check(Number(s.mem.peak_rss_bytes) >= Number(s.mem.idle_rss_bytes) && Number(s.mem.idle_rss_bytes) > 0, 'peak >= idle', JSON.stringify(s.mem));
    const rows = fs.readFileSync(csv, 'utf8').trim().split('\n');
    check(rows[0] === 't_ms,rss_bytes' && rows.length - 1 === Number(s.mem.memmon_samples), 'memmon CSV');
    globalThis.windowConstraints = row.constraints;
});

await testCase('synth_backends_agree', () => {
    const vp = genVanilla('window-post');
    const cnt = parseSynth(runOk(BENCH, ['synth', '--type', 'window-post', '--vanilla', vp, '--repeat', '2', '--backend', 'count']).out);
    check(cnt.head.backend === 'count' && cnt.rows.length === 1);
    check(cnt.rows[0].constraints === globalThis.windowConstraints, 'counter and prover agree', cnt.rows[0].constraints, globalThis.windowConstraints);
    const chk = runOk(BENCH, ['synth', '--type', 'window-post', '--vanilla', vp, '--repeat', '1', '--backend', 'check']);
    check(parseSynth(chk.out).rows[0].constraints === globalThis.windowConstraints, 'checker too');
    const win = parseSynth(runOk(BENCH, ['synth', '--type', 'winning-post', '--vanilla', genVanilla('winning-post'), '--repeat', '2', '--partition', '0']).out);
    check(win.head.circuit === 'winning-2k' && win.rows.length === 1 && win.rows[0].k === 0);
    check(win.rows[0].constraints > globalThis.windowConstraints, 'winning (66 sectors) is larger than window (1)');
    const po = parseSynth(runOk(BENCH, ['synth', '--type', 'porep', '--c1', genVanilla('porep'), '--repeat', '1', '--backend', 'count']).out);
    check(po.head.circuit === 'porep-2k' && po.rows.length === Number(po.head.partitions), 'porep partitions', JSON.stringify(po.head));
});

await testCase('synth_pce_records_then_loads', () => {
    const vp = genVanilla('window-post');
    const shape = path.join(DIR, 'wpost-2k.shape');
    fs.rmSync(shape, { force: true });
    const args = ['synth', '--type', 'window-post', '--vanilla', vp, '--repeat', '2', '--backend', 'pce', '--threads', '2', '--timing', '--shape-file', shape];
    const a = runOk(BENCH, args);
    check(/^shape recorded ms=\S+ rows=\d+ nnz_a=\d+/m.test(a.out) && a.out.includes(`saved=${shape}`), 'recorded and saved', a.out);
    const sa = parseSynth(a.out);
    check(sa.head.backend === 'pce' && Number(sa.head.threads) === 2 && sa.runs.length === 2, a.out);
    check(sa.runs.every((x) => x.products > 0), 'products timed', a.out);
    check(sa.rows[0].constraints === globalThis.windowConstraints, 'pce and prover agree on the shape');
    const b = runOk(BENCH, args);
    check(/^shape loaded file=/m.test(b.out), 'loaded from the file', b.out);
    // A corrupt file is refused and recorded again.
    const buf = fs.readFileSync(shape);
    buf[buf.length - 3] ^= 0x20;
    fs.writeFileSync(shape, buf);
    const c = runOk(BENCH, args);
    check(/^shape not loaded \(.*\): recording$/m.test(c.out) && /^shape recorded /m.test(c.out), 'corrupt file re-recorded', c.out);
    check(run(BENCH, ['synth', '--type', 'window-post', '--vanilla', vp, '--gpu']).code === 2, '--gpu needs pce');
});

await testCase('synth_refuses_bad_input', () => {
    const vp = genVanilla('window-post');
    const bad = path.join(DIR, 'tampered.vp');
    const buf = fs.readFileSync(vp);
    buf[buf.length - 40] ^= 0x01; // inside the last Merkle path
    fs.writeFileSync(bad, buf);
    fs.copyFileSync(`${vp}.json`, `${bad}.json`);
    const r = run(BENCH, ['synth', '--type', 'window-post', '--vanilla', bad]);
    check(r.code === 2 && r.err.includes('error'), 'tampered proof refused', r.code, r.err);
    check(run(BENCH, ['synth', '--type', 'window-post', '--vanilla', vp, '--partition', '1']).code === 2, 'partition out of range');
    check(run(BENCH, ['synth', '--type', 'window-post', '--vanilla', vp, '--backend', 'gpu']).code === 2, 'bad backend');
});

// ---- timeline on a constructed log ------------------------------------------------------------

await testCase('timeline_structure', () => {
    const { file, ev, totals } = writeSyntheticTimeline(DIR);
    const svgFile = path.join(DIR, 'synthetic.svg');
    const r = runOk(BENCH, ['timeline', '--log', file, '--out', svgFile, '--width', '1200']);
    const head = kv(r.out.split('\n')[0]);
    check(Number(head.jobs) === 3 && Number(head.stages) === ev.length, 'summary line', r.out.split('\n')[0]);
    check(Number(head.lanes) === 4 && Number(head.queue_lanes) === 2, 'lanes', r.out.split('\n')[0]);
    const svg = fs.readFileSync(svgFile, 'utf8');
    const st = svgStructure(svg);
    check(st.width === 1200, 'width');
    check(JSON.stringify(st.lanes.map((l) => l.worker)) ===
        JSON.stringify(['cuzk-synth-0', 'cuzk-synth-1', 'cuzk-prove-0', 'cuzk-prove-1', 'queue', 'queue']), 'lane order', JSON.stringify(st.lanes));
    check(st.bars.length === ev.length, `one bar per stage line: ${st.bars.length} vs ${ev.length}`);
    // geometry: x = LEFT + (start - t0) * scale, width = ms * scale (at least 1 px)
    const t0 = Math.min(...ev.map((e) => e.start)), t1 = Math.max(...ev.map((e) => e.start + e.ms));
    const left = Math.min(...st.bars.map((b) => b.x));
    const scale = (1200 - left - 30) / (t1 - t0);
    const laneY = {};
    for (const e of ev) {
        const b = st.bars.find((x) => x.job === e.job && x.stage === e.stage && x.partition === String(e.k) &&
            Math.abs(x.x - (left + (e.start - t0) * scale)) < 0.02);
        check(b, 'bar for', JSON.stringify(e));
        check(Math.abs(b.w - Math.max(1, e.ms * scale)) < 0.02, 'width', JSON.stringify(e), b.w);
        if (e.worker !== 'queue') {
            laneY[e.worker] = laneY[e.worker] ?? b.y;
            check(laneY[e.worker] === b.y, 'same lane for one worker', e.worker);
        }
    }
    check(new Set(Object.values(laneY)).size === 4, 'four worker rows');
    const qy = st.bars.filter((b) => b.stage === 'queue').map((b) => b.y);
    check(new Set(qy).size === 2, 'overlapping queue waits on two rows', qy);
    check(svg.includes('<g class="legend">') && svg.includes('>msm_b_g2</text>'), 'legend');
    // the per-job table: total, sum of stages, covered wall time, idle
    const rows = r.out.split('\n').filter((l) => /^#\d /.test(l));
    check(rows.length === 3, 'three job rows', r.out);
    for (const row of rows) {
        const f = row.trim().split(/\s+/);
        const job = f[1], total = +f[4], sum = +f[5], cov = +f[6], idle = +f[7];
        const mine = ev.filter((e) => e.job === job);
        const wantSum = mine.reduce((a, e) => a + e.ms, 0);
        const first = Math.min(...mine.map((e) => e.start)), last = Math.max(...mine.map((e) => e.start + e.ms));
        check(total === totals[job], 'total', row);
        check(Math.abs(sum - wantSum) < 0.06, 'sum of stages', row, wantSum);
        // each job's stages leave no hole between the first start and the last end here
        check(Math.abs(cov - (last - first)) < 0.06, 'covered', row, last - first);
        check(Math.abs(idle - (total - cov)) < 0.06 && idle >= 0, 'idle', row);
        check(cov <= total, 'stages cover no more than the total', row);
    }
    // per-stage table: msm_h appears 6 times (3 jobs x 2 partitions), 100 ms each
    const msm = r.out.split('\n').find((l) => l.startsWith('msm_h '));
    check(msm && /^msm_h\s+6\s+600\.0\s+100\.00\s+100\.00$/.test(msm.trim()), 'stage table', msm);
    check(run(BENCH, ['timeline', '--log', file, '--out', svgFile, '--job', 'nope']).code === 2, 'unknown job');
    check(run(BENCH, ['timeline', '--log', path.join(DIR, 'absent.log'), '--out', svgFile]).code === 2, 'absent log');
    const one = runOk(BENCH, ['timeline', '--log', file, '--out', svgFile, '--job', 'job-two']);
    check(Number(kv(one.out.split('\n')[0]).jobs) === 1, '--job filters');
});

fs.rmSync(DIR, { recursive: true, force: true });
finish();
