#!/usr/bin/env node
// test_perf_e2e.mjs - the timing switch, the memory gauges and `cuzk-bench ab` against real
// cuzkd processes proving real 2 KiB WindowPoSt proofs (e2e label).
//
//   timing_switch   a daemon without the switch writes no stage lines; with CUZK_TIMING=1, or
//                   `[logging] timing = true` in its config file, every proof gets one line per
//                   stage (queue, parse, srs_load, synthesis, finish, the prover's prep ..
//                   assemble, verify). Against AwaitProof's timing fields (cuzk-bench single
//                   --json): parse + shape_record/load + synthesis + finish + products =
//                   synthesis_ms, the prover's stages fit
//                   in gpu_compute_ms, all stages fit in total_ms (one partition: they run one
//                   after the other). GetMetrics has the working-memory gauges (resident now and
//                   peak, budget peak) with peak >= current > 0.
//   ab_identical    `ab` with two identical configurations (5 runs each) reports no significant
//                   difference in total time, a complete per-stage table with min <= median <=
//                   max, medians that match the daemons' own logs, daemon memory peaks at least
//                   their first (idle) sample, and keeps the logs for test_perf_e2e_render.
//   ab_failures     a missing config file and a daemon that cannot start are errors (exit 2)
//                   naming the cause.
// Usage: node test_perf_e2e.mjs <cuzk-bench> <cuzkd> <params dir> <out dir>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { check, finish, kv, run, runOk, testCase } from './lib.mjs';

const [BENCH, CUZKD, PARAMS, OUT] = process.argv.slice(2);
if (!OUT) {
    console.error('usage: test_perf_e2e.mjs <cuzk-bench> <cuzkd> <params dir> <out dir>');
    process.exit(2);
}
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });

// The 2 KiB WindowPoSt parameters (the same seed as tests/e2e's fixture; "up to date" when
// that fixture already made them), and a vanilla proof with its sidecar.
runOk(BENCH, ['setup', '--proof', 'window-post', '--sector-size', '2KiB', '--out', PARAMS, '--seed', 'c0ffee2c1']);
const VP = path.join(OUT, 'window.vp');
runOk(BENCH, ['gen-vanilla', 'window-post', '--sector-size', '2KiB', '--out', VP, '--seed', 'e2e0']);

function config(name, extra = '') {
    const file = path.join(OUT, name);
    fs.writeFileSync(file, `[srs]\nparam_cache = "${PARAMS}"\n[memory]\ntotal_budget = "1GiB"\n` +
        `[pipeline]\nprover_cpu_threads = 2\n${extra}`);
    return file;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Starts cuzkd on a unix socket with its stderr in `log`; resolves once it is ready.
async function startDaemon(tag, args, env) {
    const sock = path.join(OUT, `${tag}.sock`), log = path.join(OUT, `${tag}.log`);
    const fd = fs.openSync(log, 'w');
    const child = spawn(CUZKD, [...args, '--listen', `unix://${sock}`], { stdio: ['ignore', fd, fd], env });
    fs.closeSync(fd);
    let exited = null;
    child.on('exit', (code) => { exited = code; });
    for (let i = 0; i < 300; i++) {
        if (exited !== null) {
            throw new Error(`cuzkd ${tag} exited ${exited}:\n${fs.readFileSync(log, 'utf8')}`);
        }
        if (fs.readFileSync(log, 'utf8').includes('event=ready')) {
            return {
                addr: `unix://${sock}`, log,
                async stop() {
                    child.kill('SIGTERM');
                    for (let j = 0; j < 300 && exited === null; j++) {
                        await sleep(50);
                    }
                    check(exited === 0, `cuzkd ${tag} exit status ${exited}`);
                },
            };
        }
        await sleep(100);
    }
    child.kill('SIGKILL');
    throw new Error(`cuzkd ${tag} not ready:\n${fs.readFileSync(log, 'utf8')}`);
}

function stageLines(text) {
    return text.split('\n').filter((l) => l.includes('event=stage')).map(kv);
}

const PROVER = ['prep', 'quotient', 'msm_h', 'msm_l', 'msm_a', 'msm_b_g1', 'msm_b_g2', 'assemble'];
const ALL = ['queue', 'parse', 'synthesis', 'finish', ...PROVER, 'verify'];

await testCase('timing_switch', async () => {
    const env = { ...process.env };
    delete env.CUZK_TIMING;
    // off
    const off = await startDaemon('off', ['--config', config('off.toml')], env);
    runOk(BENCH, ['single', '--addr', off.addr, '--type', 'window-post', '--vanilla', VP, '--json']);
    await off.stop();
    const offLog = fs.readFileSync(off.log, 'utf8');
    check(offLog.includes('status=completed') && stageLines(offLog).length === 0, 'no stage lines without the switch');

    // on through the environment, then through the config file
    for (const [tag, cfg, e] of [['env', config('env.toml'), { ...env, CUZK_TIMING: '1' }],
        ['file', config('file.toml', '[logging]\ntiming = true\n'), env]]) {
        const d = await startDaemon(tag, ['--config', cfg], e);
        const results = [];
        for (let i = 0; i < 2; i++) {
            const r = runOk(BENCH, ['single', '--addr', d.addr, '--type', 'window-post', '--vanilla', VP, '--json']);
            results.push(JSON.parse(r.out.trim().split('\n').pop()));
        }
        const m = runOk(BENCH, ['metrics', '--addr', d.addr]).out;
        await d.stop();
        const gauge = (name) => {
            const l = m.split('\n').find((x) => x.startsWith(`${name} `));
            check(l, `gauge ${name}`);
            return Number(l.split(' ')[1]);
        };
        const rss = gauge('cuzk_process_resident_bytes'), rssPeak = gauge('cuzk_process_resident_peak_bytes');
        const used = gauge('cuzk_memory_used_bytes'), usedPeak = gauge('cuzk_memory_used_peak_bytes');
        check(rss > 0 && rssPeak >= rss, `resident ${rss}, peak ${rssPeak}`);
        check(usedPeak > 0 && usedPeak >= used, `budget used ${used}, peak ${usedPeak}`);

        const st = stageLines(fs.readFileSync(d.log, 'utf8'));
        for (const res of results) {
            check(res.status === 'COMPLETED', JSON.stringify(res));
            const mine = st.filter((x) => x.job === res.job_id);
            const ms = (name) => mine.filter((x) => x.stage === name).reduce((a, x) => a + Number(x.ms), 0);
            for (const name of ALL) {
                check(mine.some((x) => x.stage === name), `${tag}: stage ${name} of ${res.job_id}`);
            }
            for (const x of mine) {
                check(x.kind === 'window-post' && (x.partition === '-' || x.partition === '0'), JSON.stringify(x));
                check(x.stage === 'queue' ? x.worker === 'queue' : /^cuzk-(synth|prove)-\d+$/.test(x.worker), 'worker', JSON.stringify(x));
                check(Number(x.ms) >= 0 && Number(x.start_ms) >= 0, JSON.stringify(x));
            }
            for (const name of ['parse', 'synthesis', 'finish', 'srs_load', 'products', 'shape_record']) {
                mine.filter((x) => x.stage === name).forEach((x) => check(x.worker.startsWith('cuzk-synth-'), name, x.worker));
            }
            for (const name of [...PROVER, 'verify']) {
                mine.filter((x) => x.stage === name).forEach((x) => check(x.worker.startsWith('cuzk-prove-'), name, x.worker));
            }
            // AwaitProof's fields are whole milliseconds, truncated
            const synth = ms('parse') + ms('shape_record') + ms('shape_load') + ms('synthesis') + ms('finish') + ms('products');
            check(res.synthesis_ms <= synth + 0.01 && synth < res.synthesis_ms + 1.01,
                `parse + shape + synthesis + finish + products = ${synth.toFixed(3)} vs synthesis_ms ${res.synthesis_ms}`);
            const prover = PROVER.reduce((a, n) => a + ms(n), 0);
            check(prover <= res.gpu_compute_ms + 1.01, `prover stages ${prover.toFixed(3)} <= gpu_compute_ms ${res.gpu_compute_ms}`);
            check(prover > 0.5 * res.gpu_compute_ms, 'the prover stages are most of gpu_compute_ms');
            const all = mine.reduce((a, x) => a + Number(x.ms), 0);
            check(all <= res.total_ms + 1.01, `stages ${all.toFixed(3)} <= total_ms ${res.total_ms}`);
            check(Math.abs(ms('srs_load') - res.srs_load_ms) < 1.01, 'srs_load', ms('srs_load'), res.srs_load_ms);
            // one job's stages in order on the clock: each starts after the previous ended
            const seq = mine.filter((x) => x.stage !== 'queue').sort((a, b) => Number(a.start_ms) - Number(b.start_ms));
            for (let i = 1; i < seq.length; i++) {
                const prevEnd = Number(seq[i - 1].start_ms) + Number(seq[i - 1].ms);
                check(Number(seq[i].start_ms) >= prevEnd - 0.002, 'no overlap in one partition', seq[i - 1].stage, seq[i].stage);
            }
        }
    }
});

function parseAb(text) {
    const rows = {};
    for (const l of text.split('\n')) {
        const f = l.trim().split(/\s+/);
        if (f.length >= 8 && /^[\d.]+$/.test(f[1]) && /\.\./.test(f[2])) {
            const [amin, amax] = f[2].split('..').map(Number), [bmin, bmax] = f[4].split('..').map(Number);
            rows[f[0]] = {
                a: Number(f[1]), amin, amax, b: Number(f[3]), bmin, bmax, diff: Number(f[5]),
                noise: Number(f[6]), verdict: f.slice(7).join(' '),
            };
        }
    }
    return rows;
}

const median = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

await testCase('ab_identical', () => {
    const a = config('A.toml'), b = config('B.toml');
    const csv = path.join(OUT, 'ab-mem.csv'), logs = path.join(OUT, 'logs');
    const r = runOk(BENCH, ['ab', '--config', a, '--config', b, '--type', 'window-post', '--vanilla', VP,
        '--runs', '5', '--warmup', '1', '--cuzkd', CUZKD, '--log-dir', logs, '--memmon', csv]);
    console.log(r.out);
    const rows = parseAb(r.out);
    for (const name of [...ALL, 'total', 'client']) {
        const x = rows[name];
        check(x, `row ${name}`);
        check(x.amin <= x.a && x.a <= x.amax && x.bmin <= x.b && x.b <= x.bmax, `min <= median <= max: ${name}`);
        check(Math.abs(x.diff - (x.b - x.a)) <= 0.01 * Math.max(1, Math.abs(x.b - x.a)) + 0.002, `B-A of ${name}`);
        check(Math.abs(x.noise - Math.max(x.amax - x.amin, x.bmax - x.bmin)) <= 0.01 * Math.max(1, x.noise) + 0.002, `noise of ${name}`);
        check(/^(not significant|SIGNIFICANT \(B (faster|slower)\))$/.test(x.verdict), `verdict of ${name}: ${x.verdict}`);
    }
    check(rows.total.verdict === 'not significant', 'identical configurations: total not significant');
    check(/^verdict: no significant difference in total time/m.test(r.out), 'verdict line');

    // the medians are those of the daemons' own logs (job summaries, warm-up excluded)
    for (const [tag, col] of [['a', 'a'], ['b', 'b']]) {
        const text = fs.readFileSync(path.join(logs, `${tag}.log`), 'utf8');
        const jobs = text.split('\n').filter((l) => l.includes('status=completed')).map(kv);
        check(jobs.length === 6, `${tag}: warm-up + 5 jobs`, jobs.length);
        const measured = jobs.filter((j) => !j.job.includes('warmup'));
        check(measured.length === 5);
        check(median(measured.map((j) => Number(j.total_ms))) === rows.total[col], `${tag} total median`);
        const st = stageLines(text);
        for (const j of measured) {
            const sum = st.filter((x) => x.job === j.job).reduce((acc, x) => acc + Number(x.ms), 0);
            check(sum <= Number(j.total_ms) + 1.01, `stages ${sum} <= total ${j.total_ms}`);
        }
        const per = measured.map((j) => st.filter((x) => x.job === j.job && x.stage === 'msm_h').reduce((acc, x) => acc + Number(x.ms), 0));
        check(Math.abs(median(per) - rows.msm_h[col]) <= 0.01 * rows.msm_h[col], `${tag} msm_h median from the log`);
    }
    // memory: both daemons sampled; the peak is the largest sample and at least the first
    const mem = kv(r.out.split('\n').find((l) => l.startsWith('memory ')));
    const lines = fs.readFileSync(csv, 'utf8').trim().split('\n');
    check(lines[0] === 't_ms,a_rss_bytes,b_rss_bytes', lines[0]);
    const vals = lines.slice(1).map((l) => l.split(',').map(Number));
    check(vals.length === Number(mem.samples) && vals.length >= 10, 'samples', vals.length);
    const peaks = [1, 2].map((c) => Math.max(...vals.map((v) => v[c])));
    const peakA = Number(r.out.match(/A peak_rss_bytes=(\d+)/)[1]), peakB = Number(r.out.match(/B peak_rss_bytes=(\d+)/)[1]);
    check(peaks[0] === peakA && peaks[1] === peakB, 'printed peaks are the CSV maxima');
    check(peakA >= vals[0][1] && peakB >= vals[0][2] && vals[0][1] > 0, 'peak >= idle baseline');
});

await testCase('ab_failures', () => {
    const a = config('A2.toml');
    const r1 = run(BENCH, ['ab', '--config', a, '--config', path.join(OUT, 'absent.toml'), '--type', 'window-post', '--vanilla', VP, '--cuzkd', CUZKD]);
    check(r1.code === 2 && r1.err.includes('absent.toml'), 'missing config', r1.err);
    const bad = path.join(OUT, 'bad.toml');
    fs.writeFileSync(bad, '[pipeline]\nno_such_key = 1\n');
    const r2 = run(BENCH, ['ab', '--config', a, '--config', bad, '--type', 'window-post', '--vanilla', VP, '--cuzkd', CUZKD]);
    check(r2.code === 2 && /exited during start-up/.test(r2.err) && r2.err.includes('no_such_key'), 'bad config', r2.err);
    const r3 = run(BENCH, ['ab', '--config', a, '--type', 'window-post', '--vanilla', VP]);
    check(r3.code === 2 && /--config twice/.test(r3.err), 'one config', r3.err);
});

finish();
