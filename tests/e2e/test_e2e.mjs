#!/usr/bin/env node
// test_e2e.mjs - the four Filecoin proof kinds end to end through cuzkd.
//
// Inputs: 2 KiB sectors sealed by the seal library (e2e_vanilla: C1 output, PoSt and SnapDeals
// vanilla proofs, each verified by its generator). Parameters: the official-name test
// parameters of <params> (the e2e_params_2k fixture, `cuzk-bench setup`). Client:
// @grpc/grpc-js + @grpc/proto-loader loading proto/cuzk/v1/proving.proto (Curio's), sending
// what Curio sends per kind (vanilla-proofs.md 4.4). Every returned proof is verified HERE with
// @noble/curves against the .vk file and public inputs derived here from the spec (lib.mjs),
// and must fail for altered inputs.
//
// Default run: bad inputs of every kind FAIL with a precise message while the daemon keeps
// serving; a PoRep C2 (Curio's wrapper) runs while two more PoReps queue behind it and a
// WinningPoSt submitted after them starts before them; the queued PoReps are cancelled and
// never run; then WindowPoSt (2 sectors) and SnapDeals. Each kind is proven once.
// --matrix (label slow): PoRep V1 (bare JSON) and synthetic, WindowPoSt V1 (position-dependent
// challenges) and a padded one-sector partition, two batched SnapDeals jobs.
//
// Usage: node test_e2e.mjs <cuzkd> <e2e_vanilla> <params dir> [--matrix]. Exit 77 (skipped)
// without the npm packages.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as L from './lib.mjs';

const [CUZKD, GEN, PARAMS, ...FLAGS] = process.argv.slice(2);
const MATRIX = FLAGS.includes('--matrix');
if (!CUZKD || !GEN || !PARAMS) {
    console.error('usage: test_e2e.mjs <cuzkd> <e2e_vanilla> <params dir> [--matrix]');
    process.exit(2);
}
const O = await L.loadOracles();
if (!O) {
    console.log('skipped: @grpc/grpc-js, @grpc/proto-loader or @noble/curves not installed');
    process.exit(77);
}
const t0 = Date.now();
const say = (s) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);
let failures = 0;
function check(cond, what) {
    if (!cond) {
        failures++;
        throw new Error('check failed: ' + what);
    }
}
function ok(r, what) {
    check(!r.err, `${what}: ${r.err && r.err.code} ${r.err && r.err.details}`);
    return r.res;
}

const vks = {};
for (const [kind, name] of Object.entries(L.VK_2K)) {
    const f = path.join(PARAMS, name);
    check(fs.existsSync(f) && fs.existsSync(f.replace(/\.vk$/, '.params')),
        `${f} missing: run tests/e2e/make_params.sh (the e2e_params_2k fixture)`);
    vks[kind] = L.readVk(O.bls, f);
}

const work = L.tmpDir('cuzk-e2e-');
const seed = String(Date.now() % 1000000007);
say(`inputs: e2e_vanilla --seed ${seed}`);
execFileSync(GEN, ['--out', path.join(work, 'in'), '--seed', seed, ...(MATRIX ? ['--matrix'] : [])],
    { stdio: 'inherit' });
const inp = L.loadInputs(path.join(work, 'in'));
const M = inp.m;
const SIZE = M.sector_size;
const rows = [];

/** Verifies a COMPLETED result with noble, and that altered inputs are refused. */
function verifyResult(kind, res, inputsOf, partitions, what) {
    check(res.status === 'COMPLETED', `${what}: ${res.status} ${res.error_message}`);
    check(res.proof.length === 192 * partitions, `${what}: ${res.proof.length} bytes, expected ${192 * partitions}`);
    check(L.verifyAll(O.bls, vks[kind], res.proof, inputsOf), `${what}: proof verifies (noble)`);
    check(!L.verifyAll(O.bls, vks[kind], res.proof, (k) => {
        const x = inputsOf(k);
        x[x.length - 1] += 1n;
        return x;
    }), `${what}: proof does not verify for other inputs`);
    for (const f of ['queue_wait_ms', 'srs_load_ms', 'synthesis_ms', 'gpu_compute_ms', 'total_ms']) {
        check(BigInt(res[f]) >= 0n && BigInt(res[f]) <= BigInt(res.total_ms), `${what}: ${f} within total`);
    }
    check(BigInt(res.gpu_compute_ms) > 0n && BigInt(res.synthesis_ms) > 0n, `${what}: stage times recorded`);
    say(`${what}: ${res.proof.length} bytes, verified with noble`);
}

async function expectFailed(d, req, text, what) {
    const r = ok(await d.rpc('Prove', { submit: req }), what);
    check(r.result.status === 'FAILED', `${what}: ${r.result.status}`);
    check(r.result.error_message.includes(text), `${what}: "${r.result.error_message}" lacks "${text}"`);
    check(r.result.proof.length === 0, `${what}: no proof`);
}

async function waitQueue(d, kind, field, n) {
    for (let i = 0; i < 3000; i++) {
        const s = ok(await d.rpc('GetStatus', {}), 'GetStatus');
        const q = s.queues.find((x) => x.proof_kind === kind);
        if (q && q[field] === n) {
            return s;
        }
        await L.sleep(20);
    }
    check(false, `${kind} ${field} never reached ${n}`);
}

// ---------------------------------------------------------------------------------------------

const c1Curio = L.parseC1(inp.read(M.porep.file));
const porepX = (k) => L.porepInputs(c1Curio, k);
const winX = () => L.winningInputs(L.hex(M.winning.randomness), M.sectors[0], SIZE);
const windowX = (spec, sectors) => () =>
    L.windowInputs(L.hex(spec.randomness), sectors, spec.partition_index, spec.registered_proof, SIZE);
const snapX = (k) => L.snapInputs(k, M.snap, SIZE);

// The PoSt comm_r the verifier uses (chain state = the sealed sector) is the one in the proofs.
for (const [i, f] of M.window.files.entries()) {
    const b = inp.read(f);
    check(b.readBigUInt64LE(0) === BigInt(M.sectors[i].id), `${f}: sector id`);
    check(b.subarray(8, 40).equals(L.hex(M.sectors[i].comm_r)), `${f}: comm_r`);
}

async function badInputs(d) {
    say('bad inputs: each must FAIL with a precise message, the daemon keeps serving');
    const c1 = inp.read(M.porep.raw);
    await expectFailed(d, L.porepRequest(inp, 'bad-porep-json', M.porep.raw, { vanilla_proof: Buffer.from('{"registered_proof":') }),
        'invalid porep-c2 request: C1 JSON', 'porep: truncated JSON');
    await expectFailed(d, L.porepRequest(inp, 'bad-porep-size', M.porep.raw, { sector_size: 8 << 20 }),
        'does not match the C1 output', 'porep: sector size');
    // One decimal digit of a parent's label changed: its labeling proof no longer verifies.
    const s = c1.toString('latin1');
    const at = s.indexOf('"rows":[[', s.indexOf('"drg_parents":[')) + 9;
    const tampered = Buffer.from(s.slice(0, at) + (s[at] === '7' ? '8' : '7') + s.slice(at + 1), 'latin1');
    await expectFailed(d, L.porepRequest(inp, 'bad-porep-label', M.porep.raw, { vanilla_proof: tampered }),
        'partition 0', 'porep: tampered C1');

    const win = inp.read(M.winning.files[0]);
    await expectFailed(d, L.postRequest(inp, 'WINNING_POST', 'bad-win-trunc', M.winning, { vanilla_proofs: [win.subarray(0, 1000)] }),
        'vanilla_proofs[0]', 'winning: truncated bincode');
    await expectFailed(d, L.postRequest(inp, 'WINNING_POST', 'bad-win-rand', M.winning, { randomness: Buffer.alloc(32, 0xff) }),
        'randomness is not a field element', 'winning: randomness >= r');
    const other = Buffer.from(L.hex(M.winning.randomness));
    other[0] ^= 1;
    await expectFailed(d, L.postRequest(inp, 'WINNING_POST', 'bad-win-chal', M.winning, { randomness: other }),
        'vanilla_proofs[0]', 'winning: proof for other randomness');
    const r = await d.rpc('SubmitProof', L.postRequest(inp, 'WINNING_POST', 'bad-win-two', M.winning,
        { vanilla_proofs: [win, win] }));
    check(r.err && r.err.code === 3 && r.err.details.includes('exactly 1'), 'winning: two proofs -> INVALID_ARGUMENT');

    const wd = M.window.files.map((f) => inp.read(f));
    await expectFailed(d, L.postRequest(inp, 'WINDOW_POST_PARTITION', 'bad-wd-three', M.window, { vanilla_proofs: [...wd, wd[0]] }),
        'holds 1 to 2 sectors', 'window: 3 sectors for a 2-sector partition');
    const wdt = Buffer.from(wd[1]);
    wdt[8 + 32 + 8 + 8 + 4 + 64 + 8 + 8 + 3] ^= 4; // a sibling of the first inclusion path
    await expectFailed(d, L.postRequest(inp, 'WINDOW_POST_PARTITION', 'bad-wd-sib', M.window, { vanilla_proofs: [wd[0], wdt] }),
        'vanilla_proofs[1]', 'window: tampered sibling');
    await expectFailed(d, L.postRequest(inp, 'WINDOW_POST_PARTITION', 'bad-wd-id', M.window, { registered_proof: 3 }),
        'is not a window-post proof', 'window: winning registered proof');

    const sn = inp.read(M.snap.files[0]);
    await expectFailed(d, L.snapRequest(inp, 'bad-snap-two', { vanilla_proofs: [sn, sn] }),
        'has 1 partitions', 'snap: 2 partition proofs for 1 partition');
    const crn = Buffer.from(L.hex(M.snap.comm_r_new));
    crn[5] ^= 1;
    await expectFailed(d, L.snapRequest(inp, 'bad-snap-comm', { comm_r_new: crn }),
        'vanilla_proofs[0] (partition 0)', 'snap: wrong comm_r_new');
    await expectFailed(d, L.snapRequest(inp, 'bad-snap-id', { registered_proof: 7 }),
        'is not a RegisteredUpdateProof', 'snap: registered proof 7');
    const st = ok(await d.rpc('GetStatus', {}), 'GetStatus after bad inputs');
    check(st.total_proofs_failed === '12' && st.total_proofs_completed === '0', `failed count ${st.total_proofs_failed}`);
}

async function defaultRun() {
    const d = await L.Daemon.start(O, CUZKD, path.join(work, 'd1'), PARAMS, ['--memory-total-budget', '8GiB',
        '--pipeline-max-active-jobs', '1', '--synthesis-threads', '1', '--log-level', 'debug',
        '--jobs-retention', '30m']);
    try {
        await badInputs(d);

        say('PoRep C2 (Curio wrapper) A running; PoReps B, C queued; WinningPoSt W submitted last');
        const t = Date.now();
        ok(await d.rpc('SubmitProof', L.porepRequest(inp, 'porep-1000-1', M.porep.file)), 'submit A');
        await waitQueue(d, 'porep-c2', 'in_progress', 1);
        ok(await d.rpc('SubmitProof', L.porepRequest(inp, 'porep-1000-B', M.porep.file)), 'submit B');
        ok(await d.rpc('SubmitProof', L.porepRequest(inp, 'porep-1000-C', M.porep.raw)), 'submit C');
        const tw = Date.now();
        const w = ok(await d.rpc('SubmitProof', L.postRequest(inp, 'WINNING_POST', 'winpost-1000-w', M.winning)), 'submit W');
        check(w.queue_position === 0, `W goes first (queue_position ${w.queue_position})`);
        let s = await waitQueue(d, 'winning-post', 'in_progress', 1);
        let q = Object.fromEntries(s.queues.map((x) => [x.proof_kind, x]));
        check(q['porep-c2'].pending === 2 && q['porep-c2'].in_progress === 1,
            `W started while B and C wait: porep pending ${q['porep-c2'].pending}, running ${q['porep-c2'].in_progress}`);
        check(s.queues.reduce((a, x) => a + x.pending + x.in_progress, 0) === 4, 'backpressure sum 4');
        // Cancel the queued PoReps: they are removed and never run.
        for (const id of ['porep-1000-B', 'porep-1000-C']) {
            const c = ok(await d.rpc('CancelProof', { job_id: id }), `cancel ${id}`);
            check(c.was_running === false, `${id} was queued`);
            const a = ok(await d.rpc('AwaitProof', { job_id: id }), `await ${id}`);
            check(a.status === 'CANCELLED' && a.proof.length === 0, `${id} cancelled`);
        }
        s = ok(await d.rpc('GetStatus', {}), 'status after cancel');
        q = Object.fromEntries(s.queues.map((x) => [x.proof_kind, x]));
        check(q['porep-c2'].pending === 0, 'no PoRep left queued');

        const wr = ok(await d.rpc('AwaitProof', { job_id: 'winpost-1000-w' }), 'await W');
        verifyResult('WINNING_POST', wr, winX, 1, 'WinningPoSt');
        rows.push(L.timingRow('WINNING_POST', wr, Date.now() - tw));
        const ar = ok(await d.rpc('AwaitProof', { job_id: 'porep-1000-1' }), 'await A');
        verifyResult('POREP_SEAL_COMMIT', ar, porepX, 1, 'PoRep C2');
        rows.push(L.timingRow('POREP_SEAL_COMMIT', ar, Date.now() - t));
        check(BigInt(wr.queue_wait_ms) < 1000n, `W waited ${wr.queue_wait_ms} ms in the queue`);

        say('WindowPoSt (2 sectors, StackedDrgWindow2KiBV1_1)');
        let t1 = Date.now();
        let r = ok(await d.rpc('Prove', { submit: L.postRequest(inp, 'WINDOW_POST_PARTITION', 'wdpost-1000-0-x', M.window) }), 'window');
        verifyResult('WINDOW_POST_PARTITION', r.result, windowX(M.window, M.sectors), 1, 'WindowPoSt');
        rows.push(L.timingRow('WINDOW_POST_PARTITION', r.result, Date.now() - t1));

        say('SnapDeals (StackedDrg2KiBV1 update)');
        t1 = Date.now();
        r = ok(await d.rpc('Prove', { submit: L.snapRequest(inp, 'snap-1000-1') }), 'snap');
        verifyResult('SNAP_DEALS_UPDATE', r.result, snapX, M.snap.partitions, 'SnapDeals');
        rows.push(L.timingRow('SNAP_DEALS_UPDATE', r.result, Date.now() - t1));

        // Idempotency: the completed PoRep is returned again, not re-proved.
        r = ok(await d.rpc('Prove', { submit: L.porepRequest(inp, 'porep-1000-1', M.porep.file) }), 'idempotent');
        check(r.result.status === 'COMPLETED' && r.result.proof.equals(ar.proof), 'same PoRep proof for the same request_id');

        s = ok(await d.rpc('GetStatus', {}), 'final status');
        check(s.total_proofs_completed === '4', `completed ${s.total_proofs_completed}`);
        const loaded = s.loaded_srs.map((x) => x.circuit_id).sort().join();
        check(['porep-2k', 'snap-2k', 'winning-2k', 'wpost-2k'].every((c) => loaded.includes(c)), `loaded SRS: ${loaded}`);
        const m = ok(await d.rpc('GetMetrics', {}), 'metrics').prometheus_text;
        check(m.includes('cuzk_proofs_completed_total 4'), 'metrics count the proofs');

        const log = d.log();
        const ran = (id) => new RegExp(`job=${id} (stage=|.*event=dispatched)`).test(log);
        check(ran('porep-1000-1') && ran('winpost-1000-w'), 'the log shows dispatched jobs');
        for (const id of ['porep-1000-B', 'porep-1000-C']) {
            check(!ran(id) && new RegExp(`job=${id} .*event=submitted`).test(log), `${id} never ran`);
        }
        check(/job=porep-1000-1 stage=parse circuit=porep-2k partitions=1/.test(log), 'PoRep plan logged');
        const code = await d.stop();
        check(code === 0, `cuzkd exit status ${code}`);
    } catch (e) {
        console.log(`--- ${d.logPath} (last lines) ---\n${d.log().split('\n').slice(-30).join('\n')}`);
        d.kill();
        throw e;
    }
}

async function matrixRun() {
    const mx = M.matrix;
    const d = await L.Daemon.start(O, CUZKD, path.join(work, 'd2'), PARAMS, ['--memory-total-budget', '8GiB',
        '--scheduler-max-batch-size', '2', '--scheduler-max-batch-wait-ms', '60000', '--log-level', 'debug']);
    try {
        for (const [name, spec] of [['PoRep V1 (bare JSON)', mx.porep_v1], ['PoRep synthetic', mx.porep_synth]]) {
            say(name);
            const t1 = Date.now();
            const c1 = L.parseC1(inp.read(spec.file));
            check(c1.registered_proof === (spec.registered_proof === 0 ? 'StackedDrg2KiBV1' : 'StackedDrg2KiBV1_1_Feat_SyntheticPoRep'),
                `${name}: registered proof ${c1.registered_proof}`);
            const r = ok(await d.rpc('Prove', { submit: L.porepRequest(inp, `m-${spec.registered_proof}`, spec.file,
                { registered_proof: spec.registered_proof, sector_size: 0 }) }), name);
            verifyResult('POREP_SEAL_COMMIT', r.result, (k) => L.porepInputs(c1, k), 1, name);
            rows.push(L.timingRow(name, r.result, Date.now() - t1));
        }
        say('WindowPoSt V1 (challenge index depends on the sector position)');
        let t1 = Date.now();
        let r = ok(await d.rpc('Prove', { submit: L.postRequest(inp, 'WINDOW_POST_PARTITION', 'm-wd-v1', mx.window_v1) }), 'window v1');
        verifyResult('WINDOW_POST_PARTITION', r.result, windowX(mx.window_v1, M.sectors), 1, 'WindowPoSt V1');
        rows.push(L.timingRow('WindowPoSt V1', r.result, Date.now() - t1));
        // The same proofs with V1_2 challenge indices do not verify as V1 ones.
        check(!L.verifyAll(O.bls, vks.WINDOW_POST_PARTITION, r.result.proof,
            windowX({ ...mx.window_v1, registered_proof: 10 }, M.sectors)), 'V1 proof is not a V1_2 proof');

        say('WindowPoSt, one sector padded to two');
        const one = { ...M.window, files: [M.window.files[1]] };
        t1 = Date.now();
        r = ok(await d.rpc('Prove', { submit: L.postRequest(inp, 'WINDOW_POST_PARTITION', 'm-wd-pad', one) }), 'window padded');
        verifyResult('WINDOW_POST_PARTITION', r.result, windowX(one, [M.sectors[1]]), 1, 'WindowPoSt padded');
        rows.push(L.timingRow('WindowPoSt padded', r.result, Date.now() - t1));

        say('two SnapDeals jobs dispatched as one batch');
        t1 = Date.now();
        const [a, b] = await Promise.all(['m-snap-a', 'm-snap-b'].map((id) => d.rpc('Prove', { submit: L.snapRequest(inp, id) })));
        for (const x of [a, b]) {
            verifyResult('SNAP_DEALS_UPDATE', ok(x, 'batched snap').result, snapX, 1, 'batched SnapDeals');
        }
        rows.push(L.timingRow('SnapDeals x2 (batch)', ok(b, 'snap').result, Date.now() - t1));
        check(/event=dispatched batch=2/.test(d.log()), 'the two SnapDeals jobs went as one batch');
        const code = await d.stop();
        check(code === 0, `cuzkd exit status ${code}`);
    } catch (e) {
        console.log(`--- ${d.logPath} (last lines) ---\n${d.log().split('\n').slice(-30).join('\n')}`);
        d.kill();
        throw e;
    }
}

let status = 0;
try {
    if (MATRIX) {
        await matrixRun();
    } else {
        await defaultRun();
    }
    console.log('\n' + L.TIMING_HEADER + '\n' + rows.join('\n'));
} catch (e) {
    status = 1;
    console.log(String(e.stack || e));
}
if (status === 0) {
    fs.rmSync(work, { recursive: true, force: true });
}
console.log(status === 0 ? `ok (${((Date.now() - t0) / 1000).toFixed(1)} s)` : `FAILED (${failures} check, work dir ${work})`);
process.exit(status);
