#!/usr/bin/env node
// test_cuzkd.mjs - cuzkd end to end over gRPC with an independent client.
//
// The client is @grpc/grpc-js + @grpc/proto-loader loading proto/cuzk/v1/proving.proto (Curio's
// plus our marked GetStatus extension), so field numbers and types are checked against the
// .proto, not against our C code; a second client loads Curio's file exactly (ours without the
// extension, checked by its sha256) and must decode the same responses. Proofs returned by the daemon are verified here with @noble/curves
// (pairing check e(A,B) = e(alpha,beta) e(IC(x),gamma) e(C,delta), the verifying key read from
// the parameter file), independently of the daemon's own verification.
//
// Part 1 runs the real cuzkd (its Filecoin handlers, no parameter files): every RPC, malformed
// input of every kind, UNIMPLEMENTED, socket mode, clean SIGTERM exit. Part 2 runs cuzkd_test
// (cuzkd with the "tk" test handler instead): real proofs, priorities, cancellation, idempotency, failures, SRS
// preload/evict, large messages, client cancellation, TCP + unix listeners, graceful drain.
//
// Usage: node test_cuzkd.mjs <cuzkd> <cuzkd_test>. The npm packages are looked up in
// tests/oracle/node_modules, then in $CUZK_GRPC_ORACLE (a node_modules directory); without
// them (or without @noble/curves) the test exits 77 (skipped).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const [CUZKD, CUZKD_TEST] = process.argv.slice(2);
if (!CUZKD || !CUZKD_TEST) {
    console.error('usage: test_cuzkd.mjs <cuzkd> <cuzkd_test>');
    process.exit(2);
}

function findModules() {
    const dirs = [path.join(ROOT, 'tests/oracle/node_modules')];
    if (process.env.CUZK_GRPC_ORACLE) {
        dirs.push(process.env.CUZK_GRPC_ORACLE);
    }
    for (const d of dirs) {
        if (fs.existsSync(path.join(d, '@grpc/grpc-js/package.json')) &&
            fs.existsSync(path.join(d, '@grpc/proto-loader/package.json'))) {
            return d;
        }
    }
    return null;
}
const MODS = findModules();
const NOBLE = path.join(ROOT, 'tests/oracle/node_modules/@noble/curves/bls12-381.js');
if (!MODS || !fs.existsSync(NOBLE)) {
    console.log('skipped: @grpc/grpc-js, @grpc/proto-loader or @noble/curves not installed');
    process.exit(77);
}
const { createRequire } = await import('node:module');
const require = createRequire(import.meta.url);
const grpc = require(path.join(MODS, '@grpc/grpc-js'));
const loader = require(path.join(MODS, '@grpc/proto-loader'));
const { bls12_381: bls } = await import(NOBLE);

const def = loader.loadSync('cuzk/v1/proving.proto', {
    includeDirs: [path.join(ROOT, 'proto')],
    keepCase: true, longs: String, enums: String, defaults: true,
});
const pkg = grpc.loadPackageDefinition(def).cuzk.v1;

// Curio's own proving.proto: ours without the blocks marked as our extension (GetStatus
// running_jobs) must be byte-identical to it (sha256 pinned in docs/daemon.md); a client built
// from it (as Curio's is) must decode every response, extension fields included.
const CURIO_PROTO_SHA256 = '31050c59a68580eaab56a1fb9ac7297ef5950c9c4ab5812279cb50a47168a632';
function curioPackage() {
    const ours = fs.readFileSync(path.join(ROOT, 'proto/cuzk/v1/proving.proto'), 'utf8');
    const text = ours.replace(/^[ \t]*\/\/ BEGIN cuzk extension[\s\S]*?\/\/ END cuzk extension\n\n?/gm, '');
    const { createHash } = require('node:crypto');
    const sha = createHash('sha256').update(text).digest('hex');
    if (sha !== CURIO_PROTO_SHA256) {
        console.error(`proto without our extension has sha256 ${sha}, Curio's ${CURIO_PROTO_SHA256}`);
        process.exit(1);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-curio-proto-'));
    fs.mkdirSync(path.join(dir, 'cuzk/v1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'cuzk/v1/proving.proto'), text);
    const d = loader.loadSync('cuzk/v1/proving.proto', {
        includeDirs: [dir], keepCase: true, longs: String, enums: String, defaults: true,
    });
    fs.rmSync(dir, { recursive: true, force: true });
    return grpc.loadPackageDefinition(d).cuzk.v1;
}
const curioPkg = curioPackage();
const MAX_MSG = 256 << 20;
const OK = 0, CANCELLED = 1, INVALID_ARGUMENT = 3, DEADLINE_EXCEEDED = 4, NOT_FOUND = 5, ALREADY_EXISTS = 6,
    FAILED_PRECONDITION = 9, UNIMPLEMENTED = 12, UNAVAILABLE = 14;

let failures = 0;
function check(cond, what) {
    if (!cond) {
        failures++;
        throw new Error('check failed: ' + what);
    }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const say = (s) => console.log(`[${((Date.now() - t0) / 1000).toFixed(2)}s] ${s}`);

// ---------------------------------------------------------------------------------------------
// Daemon handling
// ---------------------------------------------------------------------------------------------

const daemons = [];

async function startDaemon(bin, extra) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzkd-test-'));
    const sock = path.join(dir, 'run', 'cuzk.sock');
    const logPath = path.join(dir, 'log');
    const log = fs.openSync(logPath, 'w');
    const args = ['--listen', 'unix://' + sock, '--param-cache', path.join(dir, 'params'),
        '--memory-total-budget', '1GiB', '--socket-mode', '0600', '--log-level', 'debug', ...extra];
    const child = spawn(bin, args, { stdio: ['ignore', log, log] });
    const d = { child, dir, sock, logPath, code: null };
    d.exited = new Promise((resolve) => child.on('exit', (code, sig) => {
        d.code = code === null ? sig : code;
        resolve(d.code);
    }));
    daemons.push(d);
    for (let i = 0; i < 400 && d.code === null; i++) {
        if (fs.existsSync(sock) && fs.readFileSync(logPath, 'utf8').includes('event=ready')) {
            break;
        }
        await sleep(50);
    }
    check(d.code === null && fs.existsSync(sock), `${path.basename(bin)} started (exit ${d.code})`);
    d.client = new pkg.ProvingEngine('unix://' + sock, grpc.credentials.createInsecure(), {
        'grpc.max_receive_message_length': MAX_MSG, 'grpc.max_send_message_length': MAX_MSG,
    });
    return d;
}

async function stopDaemon(d, signal = 'SIGTERM') {
    d.client.close();
    if (d.code === null) {
        d.child.kill(signal);
    }
    const code = await Promise.race([d.exited, sleep(15000).then(() => 'hung')]);
    return code;
}

function rpc(client, method, req, deadlineMs = 30000) {
    return new Promise((resolve) => {
        client[method](req, { deadline: Date.now() + deadlineMs }, (err, res) => resolve({ err, res }));
    });
}

function raw(client, method, bytes) {
    return new Promise((resolve) => {
        client.makeUnaryRequest('/cuzk.v1.ProvingEngine/' + method, (x) => x, (x) => x, bytes,
            { deadline: Date.now() + 10000 }, (err, res) => resolve({ err, res }));
    });
}

function expectCode(r, code, text, what) {
    check(r.err && r.err.code === code,
        `${what}: expected code ${code}, got ${r.err ? r.err.code + ' ' + r.err.details : 'OK'}`);
    if (text) {
        check(r.err.details.includes(text), `${what}: "${r.err.details}" lacks "${text}"`);
    }
}

function expectOk(r, what) {
    check(!r.err, `${what}: ${r.err && r.err.code} ${r.err && r.err.details}`);
    return r.res;
}

// ---------------------------------------------------------------------------------------------
// The test handler's payload and the independent verifier
// ---------------------------------------------------------------------------------------------

const TK_BAD_INPUT = 4, TK_PARSE_FAIL = 8, TK_BIG = 16;

function tkPayload({ flags = 0, sleepMs = 0, mem = 0, xs = [7] }) {
    const b = Buffer.alloc(24 + 8 * xs.length);
    b.write('TK01', 0, 'latin1');
    b.writeUInt32LE(flags, 4);
    b.writeUInt32LE(sleepMs, 8);
    b.writeBigUInt64LE(BigInt(mem), 12);
    b.writeUInt32LE(xs.length, 20);
    xs.forEach((x, i) => b.writeBigUInt64LE(BigInt(x), 24 + 8 * i));
    return b;
}

const R = bls.fields.Fr.ORDER;
const Fp12 = bls.fields.Fp12;

function readVk(file) {
    const f = fs.readFileSync(file);
    const g1 = (o) => bls.G1.Point.fromBytes(f.subarray(o, o + 96));
    const g2 = (o) => bls.G2.Point.fromBytes(f.subarray(o, o + 192));
    const n = f.readUInt32BE(864);
    const ic = [];
    for (let i = 0; i < n; i++) {
        ic.push(g1(868 + 96 * i));
    }
    return { alpha: g1(0), beta: g2(192), gamma: g2(384), delta: g2(672), ic };
}

function verify(vk, proof, x) {
    const x3 = BigInt(x);
    const y = (x3 * x3 * x3 + x3 + 5n) % R;
    const A = bls.G1.Point.fromBytes(proof.subarray(0, 48));
    const B = bls.G2.Point.fromBytes(proof.subarray(48, 144));
    const C = bls.G1.Point.fromBytes(proof.subarray(144, 192));
    const acc = vk.ic[0].add(vk.ic[1].multiply(y));
    const lhs = bls.pairing(A, B);
    const rhs = Fp12.mul(Fp12.mul(bls.pairing(vk.alpha, vk.beta), bls.pairing(acc, vk.gamma)),
        bls.pairing(C, vk.delta));
    return Fp12.eql(lhs, rhs);
}

const RAND = Buffer.alloc(32, 0x2a);
const COMM = Buffer.alloc(32, 0x07);

function req(kind, id, payload, more = {}) {
    const r = { request_id: id, proof_kind: kind, sector_size: 2048, registered_proof: 0 };
    if (kind === 'POREP_SEAL_COMMIT') {
        r.vanilla_proof = payload;
    } else {
        r.vanilla_proofs = [payload];
    }
    if (kind === 'WINNING_POST' || kind === 'WINDOW_POST_PARTITION') {
        r.randomness = RAND;
    }
    if (kind === 'SNAP_DEALS_UPDATE') {
        Object.assign(r, { comm_r_old: COMM, comm_r_new: COMM, comm_d_new: COMM });
    }
    return Object.assign(r, more);
}

async function waitQueue(client, kind, field, n) {
    for (let i = 0; i < 400; i++) {
        const s = expectOk(await rpc(client, 'GetStatus', {}), 'GetStatus');
        const q = s.queues.find((q) => q.proof_kind === kind);
        if (q && q[field] === n) {
            return s;
        }
        await sleep(10);
    }
    check(false, `${kind} ${field} never reached ${n}`);
}

// ---------------------------------------------------------------------------------------------
// Part 1: the real daemon
// ---------------------------------------------------------------------------------------------

async function part1() {
    say('part 1: the real cuzkd');
    // The CPU path whatever the machine has (tests/engine covers the devices).
    const d = await startDaemon(CUZKD, ['--gpus', 'none']);
    const c = d.client;
    const st = fs.statSync(d.sock);
    check(st.isSocket() && (st.mode & 0o777) === 0o600, `socket mode ${(st.mode & 0o777).toString(8)}`);

    let s = expectOk(await rpc(c, 'GetStatus', {}), 'GetStatus');
    check(s.gpus.length === 0, 'no GPUs');
    check(s.queues.map((q) => q.proof_kind).join() === 'porep-c2,snap-update,window-post,winning-post',
        'queue names');
    check(s.queues.every((q) => q.pending === 0 && q.in_progress === 0), 'idle queues');
    check(Array.isArray(s.running_jobs) && s.running_jobs.length === 0, 'idle: no running jobs');

    let r = expectOk(await rpc(c, 'Prove', { submit: req('POREP_SEAL_COMMIT', 'porep-1000-1', Buffer.from('{}')) }), 'Prove');
    check(r.result.status === 'FAILED' && r.result.job_id === 'porep-1000-1', 'porep FAILED');
    check(r.result.error_message.startsWith('invalid porep-c2 request: C1 JSON'), r.result.error_message);
    r = expectOk(await rpc(c, 'SubmitProof', req('WINNING_POST', 'winpost-1000-2a2a', Buffer.from('x'))), 'Submit');
    check(r.job_id === 'winpost-1000-2a2a', 'job_id = request_id');
    r = expectOk(await rpc(c, 'AwaitProof', { job_id: 'winpost-1000-2a2a' }), 'Await');
    check(r.status === 'FAILED' && r.error_message.startsWith('invalid winning-post request: vanilla_proofs[0]'),
        r.error_message);

    const garbage = Buffer.from([0xff, 0xff, 0xff]);
    for (const m of ['SubmitProof', 'AwaitProof', 'Prove', 'CancelProof', 'GetStatus', 'GetMetrics',
        'PreloadSRS', 'EvictSRS']) {
        expectCode(await raw(c, m, garbage), INVALID_ARGUMENT, 'malformed', `garbage to ${m}`);
    }
    expectCode(await raw(c, 'Nope', Buffer.alloc(0)), UNIMPLEMENTED, 'unknown method', 'unknown method');
    expectCode(await rpc(c, 'Prove', { submit: { proof_kind: 0, vanilla_proof: Buffer.from('x') } }),
        INVALID_ARGUMENT, 'invalid proof_kind 0', 'kind 0');
    expectCode(await rpc(c, 'Prove', { submit: { proof_kind: 9, vanilla_proof: Buffer.from('x') } }),
        INVALID_ARGUMENT, 'invalid proof_kind 9', 'kind 9');
    expectCode(await rpc(c, 'SubmitProof', req('WINNING_POST', 'w', Buffer.from('x'), { randomness: Buffer.alloc(31) })),
        INVALID_ARGUMENT, 'randomness is 31 bytes', 'short randomness');
    expectCode(await rpc(c, 'SubmitProof', req('SNAP_DEALS_UPDATE', 's', Buffer.from('x'), { comm_d_new: Buffer.alloc(33) })),
        INVALID_ARGUMENT, 'expected 32', 'long commitment');
    expectCode(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'p', Buffer.from('x'), { priority: 9 })),
        INVALID_ARGUMENT, 'invalid priority 9', 'priority');
    expectCode(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'bad\nid', Buffer.from('x'))),
        INVALID_ARGUMENT, 'control characters', 'request_id with a newline');
    expectCode(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'porep-1\u0000x', Buffer.from('x'))),
        INVALID_ARGUMENT, 'NUL', 'request_id with a NUL byte');
    expectCode(await rpc(c, 'Prove', { submit: req('POREP_SEAL_COMMIT', 'porep-1\u0000x', Buffer.from('x')) }),
        INVALID_ARGUMENT, 'NUL', 'Prove: request_id with a NUL byte');
    expectCode(await rpc(c, 'AwaitProof', { job_id: 'porep-1000-1\u0000x' }), INVALID_ARGUMENT, 'NUL',
        'await: job_id with a NUL byte');
    expectCode(await rpc(c, 'CancelProof', { job_id: 'porep-1000-1\u0000x' }), INVALID_ARGUMENT, 'NUL',
        'cancel: job_id with a NUL byte');
    expectCode(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'x'.repeat(128), Buffer.from('x'))),
        INVALID_ARGUMENT, 'at most 127', 'over-long request_id');

    // Entry counts are bounded before anything is decoded: a million one-byte entries are
    // refused at once, and no kind takes more than it can use.
    const one = Buffer.from('x');
    // The messages are encoded first (seconds on a loaded 2-core machine), so that only the
    // daemon's part is timed.
    const many = { proof_kind: 'WINDOW_POST_PARTITION', randomness: RAND, vanilla_proofs: new Array(1 << 20).fill(one) };
    const ser = (method, msg) => pkg.ProvingEngine.service[method].requestSerialize(msg);
    const manyBytes = [ser('SubmitProof', many), ser('Prove', { submit: many })];
    let t = Date.now();
    expectCode(await raw(c, 'SubmitProof', manyBytes[0]), INVALID_ARGUMENT, 'more than 2349 vanilla_proofs', '2^20 entries');
    expectCode(await raw(c, 'Prove', manyBytes[1]), INVALID_ARGUMENT, 'more than 2349 vanilla_proofs', 'Prove: 2^20 entries');
    check(Date.now() - t < 5000, `2^20 entries refused in ${Date.now() - t} ms`);
    expectCode(await rpc(c, 'SubmitProof', { proof_kind: 'SNAP_DEALS_UPDATE', vanilla_proofs: new Array(17).fill(one),
        comm_r_old: COMM, comm_r_new: COMM, comm_d_new: COMM }), INVALID_ARGUMENT, 'at most 16', 'SnapDeals: 17 partitions');
    expectCode(await rpc(c, 'SubmitProof', { proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: one, vanilla_proofs: [one] }),
        INVALID_ARGUMENT, 'at most 0', 'PoRep with vanilla_proofs');
    expectCode(await rpc(c, 'SubmitProof', { proof_kind: 'WINNING_POST', vanilla_proofs: [], randomness: RAND }),
        INVALID_ARGUMENT, 'needs vanilla_proofs', 'no vanilla proofs');
    expectCode(await rpc(c, 'Prove', {}), INVALID_ARGUMENT, 'missing submit field', 'Prove without submit');
    expectCode(await rpc(c, 'AwaitProof', { job_id: 'nope' }), NOT_FOUND, 'job nope not found', 'await unknown');
    expectCode(await rpc(c, 'AwaitProof', { job_id: '' }), INVALID_ARGUMENT, 'job_id is empty', 'await empty');
    r = expectOk(await rpc(c, 'CancelProof', { job_id: 'nope' }), 'cancel unknown');
    check(r.was_running === false, 'was_running false');
    // A circuit id with a NUL would read as its prefix, one with a control character would reach
    // the logs and paths: both refused before any lookup.
    expectCode(await rpc(c, 'PreloadSRS', { circuit_id: 'porep-32g\u0000junk' }), INVALID_ARGUMENT, 'NUL',
        'preload: circuit_id with a NUL byte');
    expectCode(await rpc(c, 'EvictSRS', { circuit_id: 'porep-32g\u0000../../etc' }), INVALID_ARGUMENT, 'NUL',
        'evict: circuit_id with a NUL byte');
    expectCode(await rpc(c, 'PreloadSRS', { circuit_id: 'porep-32g\n' }), INVALID_ARGUMENT, 'control characters',
        'preload: circuit_id with a newline');
    expectCode(await rpc(c, 'EvictSRS', { circuit_id: '\u007fporep' }), INVALID_ARGUMENT, 'control characters',
        'evict: circuit_id with DEL');
    // Calls that end without a request message (half-closed at once) are answered and leave
    // nothing behind: in the sanitizer build (CI phase sanitize) a leaked call makes
    // LeakSanitizer turn the exit status checked after SIGTERM below non-zero.
    for (let i = 0; i < 3; i++) {
        const r = await new Promise((resolve) => {
            const call = c.makeClientStreamRequest('/cuzk.v1.ProvingEngine/GetStatus', (x) => x, (x) => x,
                { deadline: Date.now() + 5000 }, (err, res) => resolve({ err, res }));
            call.end();
        });
        check(r.err || r.res, 'a call without a request message is answered');
    }
    expectCode(await rpc(c, 'EvictSRS', { circuit_id: '' }), INVALID_ARGUMENT, 'empty or too long',
        'evict: empty circuit_id');
    expectCode(await rpc(c, 'PreloadSRS', { circuit_id: 'porep-32gb' }), NOT_FOUND, 'unknown circuit id', 'preload');
    expectCode(await rpc(c, 'EvictSRS', { circuit_id: 'porep-32gb' }), NOT_FOUND, 'unknown circuit id', 'evict');
    expectCode(await rpc(c, 'PreloadSRS', { circuit_id: 'porep-32g' }), FAILED_PRECONDITION, 'not found',
        'preload without the parameter file');
    r = expectOk(await rpc(c, 'EvictSRS', { circuit_id: 'porep-32g' }), 'evict a known, unloaded circuit');
    check(r.was_loaded === false && r.freed_bytes === '0', 'nothing to evict');
    r = expectOk(await rpc(c, 'GetMetrics', {}), 'GetMetrics');
    check(r.prometheus_text.includes('\ncuzk_proofs_failed_total 2\n'), 'metrics count the failures');
    s = expectOk(await rpc(c, 'GetStatus', {}), 'GetStatus after abuse');
    check(s.total_proofs_failed === '2' && s.total_proofs_completed === '0', 'status totals');

    const code = await stopDaemon(d);
    check(code === 0, `cuzkd exit status ${code} after SIGTERM`);
    check(!fs.existsSync(d.sock), 'socket removed on exit');
    say('part 1 ok');
}

// ---------------------------------------------------------------------------------------------
// Part 2: real proofs through the test handler
// ---------------------------------------------------------------------------------------------

// GetStatus running_jobs (our extension) follows a 4-partition job, partition by partition;
// a client of Curio's proto decodes the same responses (it skips the field).
async function runningJobs(d, c, vk) {
    const xs = [21, 22, 23, 24];
    const curio = new curioPkg.ProvingEngine('unix://' + d.sock, grpc.credentials.createInsecure());
    expectOk(await rpc(c, 'SubmitProof', req('SNAP_DEALS_UPDATE', 'snap 7', tkPayload({ sleepMs: 250, xs }))), 'submit');
    let seen = null;
    for (let i = 0; i < 1000 && !seen; i++) {
        const s = expectOk(await rpc(c, 'GetStatus', {}), 'GetStatus');
        const j = s.running_jobs.find((x) => x.request_id === 'snap 7');
        if (j && j.partitions_done > 0 && j.partitions_done < 4) {
            seen = j;
        }
        await sleep(10);
    }
    check(seen, 'a running job with some partitions done');
    say(`running: ${JSON.stringify(seen)}`);
    check(seen.proof_kind === 'snap-update' && seen.partitions_total === 4, 'kind and partitions');
    check(['wait', 'synthesis', 'prove'].includes(seen.stage), `stage ${seen.stage}`);
    check(BigInt(seen.age_ms) >= BigInt(seen.running_ms) && BigInt(seen.age_ms) >= 250n, 'ages');
    const old = expectOk(await rpc(curio, 'GetStatus', {}), "GetStatus with Curio's proto");
    check(!('running_jobs' in old) && old.queues.find((q) => q.proof_kind === 'snap-update').in_progress === 1,
        "Curio's client decodes the response without the extension");
    curio.close();
    const r = expectOk(await rpc(c, 'AwaitProof', { job_id: 'snap 7' }), 'await');
    check(r.status === 'COMPLETED' && r.proof.length === 4 * 192, `completed: ${r.status}`);
    xs.forEach((x, k) => check(verify(vk, r.proof.subarray(192 * k, 192 * k + 192), x), `partition ${k} verifies`));
    const s = expectOk(await rpc(c, 'GetStatus', {}), 'GetStatus after');
    check(s.running_jobs.length === 0, 'no running job once it completed');
    const log = fs.readFileSync(d.logPath, 'utf8');
    check(log.includes('job="snap 7" event=progress partitions_done=4 partitions=4'), 'progress logged');
}

async function part2() {
    say('part 2: cuzkd_test with the test handler');
    const d = await startDaemon(CUZKD_TEST, ['--listen', '127.0.0.1:0', '--pipeline-max-active-jobs', '1',
        '--synthesis-threads', '1', '--memory-eviction-min-idle', '0', '--jobs-retention', '10m']);
    const c = d.client;
    const vkSmall = readVk(path.join(d.dir, 'params', 'tk-test-cubic.params'));

    // A WinningPoSt proof and a 3-partition SnapDeals proof, verified with noble.
    let r = expectOk(await rpc(c, 'Prove', { submit: req('WINNING_POST', 'winpost-1-abc', tkPayload({ xs: [12345] })) }), 'winning');
    check(r.result.status === 'COMPLETED', `winning: ${r.result.status} ${r.result.error_message}`);
    check(r.result.proof.length === 192, 'winning proof is 192 bytes');
    check(verify(vkSmall, r.result.proof, 12345), 'winning proof verifies (noble)');
    check(!verify(vkSmall, r.result.proof, 12346), 'and not for another input');
    const xs = [3, 99, 2n ** 63n + 5n];
    r = expectOk(await rpc(c, 'Prove', { submit: req('SNAP_DEALS_UPDATE', 'snap-1-2', tkPayload({ xs })) }), 'snap');
    check(r.result.status === 'COMPLETED' && r.result.proof.length === 576, 'snap: 3 x 192 bytes');
    xs.forEach((x, k) => check(verify(vkSmall, r.result.proof.subarray(192 * k, 192 * k + 192), x),
        `snap partition ${k} verifies in order`));
    check(BigInt(r.result.total_ms) >= BigInt(r.result.queue_wait_ms), 'timings');

    // The TCP listener serves the same daemon.
    const port = Number(/addr=127\.0\.0\.1:0 port=(\d+)/.exec(fs.readFileSync(d.logPath, 'utf8'))[1]);
    const tcp = new pkg.ProvingEngine(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    let s = expectOk(await rpc(tcp, 'GetStatus', {}), 'GetStatus over TCP');
    check(s.total_proofs_completed === '2', 'TCP sees the same counters');
    tcp.close();
    await runningJobs(d, c, vkSmall);

    // Priorities: a CRITICAL WinningPoSt overtakes queued NORMAL PoReps; status stays exact.
    const slow = tkPayload({ sleepMs: 500, xs: [5] });
    const order = [];
    const track = (id) => rpc(c, 'AwaitProof', { job_id: id }).then((x) => { order.push(id); return x; });
    expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'A', slow)), 'submit A');
    await waitQueue(c, 'porep-c2', 'in_progress', 1);
    expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'N1', tkPayload({ xs: [6] }))), 'submit N1');
    expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'N2', tkPayload({ xs: [7] }))), 'submit N2');
    r = expectOk(await rpc(c, 'SubmitProof', req('WINNING_POST', 'W', tkPayload({ xs: [8] }))), 'submit W');
    s = await waitQueue(c, 'winning-post', 'in_progress', 1);
    const q = Object.fromEntries(s.queues.map((q) => [q.proof_kind, q]));
    check(q['porep-c2'].pending === 2 && q['porep-c2'].in_progress === 1, 'porep: 2 pending, 1 running');
    check(s.queues.reduce((a, q) => a + q.pending + q.in_progress, 0) === 4, 'backpressure sum is 4');
    const waits = await Promise.all(['A', 'N1', 'N2', 'W'].map(track));
    waits.forEach((w) => check(expectOk(w, 'await').status === 'COMPLETED', 'priority jobs complete'));
    check(order.indexOf('W') < order.indexOf('N1') && order.indexOf('N1') < order.indexOf('N2'),
        `completion order ${order}`);

    // Cancellation: a queued job never runs, a running one stops.
    expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'C1', tkPayload({ sleepMs: 400, xs: [1, 2] }))), 'C1');
    await waitQueue(c, 'porep-c2', 'in_progress', 1);
    expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'C2', tkPayload({ xs: [3] }))), 'C2');
    r = expectOk(await rpc(c, 'CancelProof', { job_id: 'C2' }), 'cancel C2');
    check(r.was_running === false, 'C2 was queued');
    r = expectOk(await rpc(c, 'AwaitProof', { job_id: 'C2' }), 'await C2');
    check(r.status === 'CANCELLED' && r.proof.length === 0, 'C2 cancelled');
    r = expectOk(await rpc(c, 'CancelProof', { job_id: 'C1' }), 'cancel C1');
    check(r.was_running === true, 'C1 was running');
    r = expectOk(await rpc(c, 'AwaitProof', { job_id: 'C1' }), 'await C1');
    check(r.status === 'CANCELLED', 'C1 cancelled');

    // Idempotent request ids.
    const p = tkPayload({ xs: [42] });
    const a = expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'porep-9-9', p)), 'idem 1');
    const b = expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'porep-9-9', p)), 'idem 2');
    check(a.job_id === 'porep-9-9' && b.job_id === a.job_id, 'same job');
    const r1 = expectOk(await rpc(c, 'AwaitProof', { job_id: 'porep-9-9' }), 'idem await');
    const r2 = expectOk(await rpc(c, 'Prove', { submit: req('POREP_SEAL_COMMIT', 'porep-9-9', p) }), 'idem prove');
    check(r1.status === 'COMPLETED' && Buffer.compare(r1.proof, r2.result.proof) === 0, 'same proof bytes');
    check(verify(vkSmall, r1.proof, 42), 'idempotent proof verifies');

    // Same id, other content: refused while the first job runs, a new job (never the old
    // proof) once it has finished.
    expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'porep-8-8', tkPayload({ sleepMs: 300, xs: [50] }))), 'content 1');
    await waitQueue(c, 'porep-c2', 'in_progress', 1);
    expectCode(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'porep-8-8', tkPayload({ xs: [51] }))),
        ALREADY_EXISTS, 'other content', 'same id, other content, first still running');
    r = expectOk(await rpc(c, 'AwaitProof', { job_id: 'porep-8-8' }), 'await content 1');
    check(r.status === 'COMPLETED' && verify(vkSmall, r.proof, 50), 'first content proved');
    r = expectOk(await rpc(c, 'Prove', { submit: req('POREP_SEAL_COMMIT', 'porep-8-8', tkPayload({ xs: [51] })) }), 'content 2');
    check(r.result.status === 'COMPLETED' && verify(vkSmall, r.result.proof, 51) && !verify(vkSmall, r.result.proof, 50),
        'same id, new content after completion: a proof of the new content');

    // Curio's ids exactly as its Go code formats them (lib/ffi/cuzk_funcs.go): WindowPoSt's
    // carries randomness[:8] printed with %d, brackets and spaces included.
    const curio = [
        ['WINDOW_POST_PARTITION', 'wdpost-1000-0-[95 52 194 205 1 2 3 4]'],
        ['WINDOW_POST_PARTITION', 'wdpost-18446744073709551615-4294967295-[255 255 255 255 255 255 255 255]'],
        ['WINNING_POST', 'winpost-1000-5f34c2cd01020304'],
        ['POREP_SEAL_COMMIT', 'porep-1000-42'],
        ['SNAP_DEALS_UPDATE', 'snap-1000-42'],
        ['POREP_SEAL_COMMIT', 'ps-porep-1000-42-7'],
    ];
    for (const [i, [kind, id]] of curio.entries()) {
        const x = 600 + i;
        r = expectOk(await rpc(c, 'SubmitProof', req(kind, id, tkPayload({ xs: [x] }))), `submit ${id}`);
        check(r.job_id === id, `job_id ${r.job_id} = ${id}`);
        r = expectOk(await rpc(c, 'AwaitProof', { job_id: id }), `await ${id}`);
        check(r.status === 'COMPLETED' && verify(vkSmall, r.proof, x), `${id}: ${r.status} ${r.error_message}`);
    }
    const logText = fs.readFileSync(d.logPath, 'utf8');
    check(logText.includes('job="wdpost-1000-0-[95 52 194 205 1 2 3 4]" kind=window-post'),
        'the WindowPoSt id is quoted in the log');

    // Failures stay local; the daemon keeps serving.
    r = expectOk(await rpc(c, 'Prove', { submit: req('WINDOW_POST_PARTITION', 'bad-1', tkPayload({ flags: TK_BAD_INPUT })) }), 'bad input');
    check(r.result.status === 'FAILED' && r.result.error_message.includes('does not verify'), r.result.error_message);
    r = expectOk(await rpc(c, 'Prove', { submit: req('POREP_SEAL_COMMIT', 'bad-2', tkPayload({ flags: TK_PARSE_FAIL })) }), 'bad parse');
    check(r.result.status === 'FAILED' && r.result.error_message.startsWith('invalid porep-c2 request'), r.result.error_message);
    const big = Buffer.alloc(20 << 20, 0x5a);
    r = expectOk(await rpc(c, 'Prove', { submit: req('POREP_SEAL_COMMIT', 'huge', big) }), '20 MiB request');
    check(r.result.status === 'FAILED' && r.result.error_message.includes('(20971520 bytes)'), r.result.error_message);

    // AwaitProof with a timeout, and a client that gives up on Prove (the job carries on).
    expectOk(await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', 'T', tkPayload({ sleepMs: 300, xs: [9] }))), 'T');
    r = expectOk(await rpc(c, 'AwaitProof', { job_id: 'T', timeout_ms: 50 }), 'await timeout');
    check(r.status === 'TIMEOUT', `await with timeout: ${r.status}`);
    expectCode(await rpc(c, 'Prove', { submit: req('POREP_SEAL_COMMIT', 'T', tkPayload({ sleepMs: 300, xs: [9] })) }, 50),
        DEADLINE_EXCEEDED, null, 'client deadline');
    r = expectOk(await rpc(c, 'AwaitProof', { job_id: 'T' }), 'await T');
    check(r.status === 'COMPLETED' && verify(vkSmall, r.proof, 9), 'T completed');

    // Parameters: preload, status, evict.
    r = expectOk(await rpc(c, 'PreloadSRS', { circuit_id: 'test-cubic-big' }), 'preload');
    check(r.already_loaded === false, 'first preload loads');
    r = expectOk(await rpc(c, 'PreloadSRS', { circuit_id: 'test-cubic-big' }), 'preload again');
    check(r.already_loaded === true, 'second preload finds it hot');
    const bigSize = fs.statSync(path.join(d.dir, 'params', 'tk-test-cubic-big.params')).size;
    s = expectOk(await rpc(c, 'GetStatus', {}), 'status');
    const e = s.loaded_srs.find((x) => x.circuit_id === 'test-cubic-big');
    check(e && e.tier === 'HOT' && Number(e.size_bytes) === bigSize && e.ref_count === 0, 'SRS status');
    check(Number(s.pinned_memory_limit_bytes) === 1 << 30, 'memory limit reported');
    r = expectOk(await rpc(c, 'EvictSRS', { circuit_id: 'test-cubic-big' }), 'evict');
    check(r.was_loaded === true && Number(r.freed_bytes) === bigSize, 'evict frees the file size');
    r = expectOk(await rpc(c, 'EvictSRS', { circuit_id: 'test-cubic-big' }), 'evict again');
    check(r.was_loaded === false, 'nothing left to evict');
    r = expectOk(await rpc(c, 'Prove', { submit: req('WINNING_POST', 'bigc', tkPayload({ flags: TK_BIG, xs: [77] })) }), 'big circuit');
    check(r.result.status === 'COMPLETED', 'big circuit proof');
    check(verify(readVk(path.join(d.dir, 'params', 'tk-test-cubic-big.params')), r.result.proof, 77),
        'big circuit proof verifies');

    r = expectOk(await rpc(c, 'GetMetrics', {}), 'metrics');
    check(r.prometheus_text.includes('cuzk_stage_duration_seconds_count{proof_kind="winning_post",stage="total"}'),
        'stage histograms');

    // Graceful drain: the running proof completes, new work is refused, exit status 0.
    const pending = rpc(c, 'Prove', { submit: req('POREP_SEAL_COMMIT', 'D', tkPayload({ sleepMs: 700, xs: [11] })) });
    await waitQueue(c, 'porep-c2', 'in_progress', 1);
    d.child.kill('SIGTERM');
    let refused = null;
    for (let i = 0; i < 100 && !refused; i++) {
        const x = await rpc(c, 'SubmitProof', req('POREP_SEAL_COMMIT', `late-${i}`, tkPayload({ xs: [1] })));
        if (x.err) {
            refused = x;
        }
        await sleep(10);
    }
    expectCode(refused, UNAVAILABLE, 'shutting down', 'submit while draining');
    r = expectOk(await pending, 'Prove across SIGTERM');
    check(r.result.status === 'COMPLETED' && verify(vkSmall, r.result.proof, 11), 'drained proof');
    const code = await stopDaemon(d);
    check(code === 0, `cuzkd_test exit status ${code}`);
    say('part 2 ok');
}

// ---------------------------------------------------------------------------------------------

let status = 0;
try {
    await part1();
    await part2();
} catch (err) {
    status = 1;
    console.log(String(err.stack || err));
    for (const d of daemons) {
        const log = fs.existsSync(d.logPath) ? fs.readFileSync(d.logPath, 'utf8') : '';
        console.log(`--- ${d.logPath} (last lines) ---\n${log.split('\n').slice(-40).join('\n')}`);
    }
} finally {
    for (const d of daemons) {
        if (d.code === null) {
            d.child.kill('SIGKILL');
        }
    }
    for (const d of daemons) {
        await Promise.race([d.exited, sleep(2000)]);
        if (status === 0) {
            fs.rmSync(d.dir, { recursive: true, force: true });
        }
    }
}
console.log(status === 0 ? `ok (${((Date.now() - t0) / 1000).toFixed(1)} s)` : `FAILED (${failures} check)`);
process.exit(status);
