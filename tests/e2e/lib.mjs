// lib.mjs - what the end-to-end test (test_e2e.mjs) and the demo client (demo_client.mjs)
// share: the gRPC client (@grpc/grpc-js + @grpc/proto-loader loading the repository's copy of
// Curio's proving.proto), starting and stopping cuzkd, the requests Curio sends per proof kind
// (spec vanilla-proofs.md 4.4) built from e2e_vanilla's manifest, and an independent verifier:
// public inputs derived here from the spec (sha256 challenges, PoSt leaf challenges, SnapDeals
// k|h_select) and the Groth16 pairing equation checked with @noble/curves against the .vk file.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const MAX_MSG = 256 << 20;

// The official 2 KiB verifying-key names (rust-fil-proofs parameters.json; the same list as
// tests/vectors/circuits/param_names.h), per proof kind of the protocol.
export const VK_2K = {
    POREP_SEAL_COMMIT: 'v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk',
    WINNING_POST: 'v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk',
    WINDOW_POST_PARTITION: 'v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk',
    SNAP_DEALS_UPDATE: 'v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk',
};

// ---------------------------------------------------------------------------------------------
// Oracles and the gRPC package
// ---------------------------------------------------------------------------------------------

/** { grpc, pkg, bls } or null when the npm packages are not installed. */
export async function loadOracles() {
    const dirs = [path.join(ROOT, 'tests/oracle/node_modules')];
    if (process.env.CUZK_GRPC_ORACLE) {
        dirs.push(process.env.CUZK_GRPC_ORACLE);
    }
    const mods = dirs.find((d) => fs.existsSync(path.join(d, '@grpc/grpc-js/package.json')) &&
        fs.existsSync(path.join(d, '@grpc/proto-loader/package.json')));
    const noble = path.join(ROOT, 'tests/oracle/node_modules/@noble/curves/bls12-381.js');
    if (!mods || !fs.existsSync(noble)) {
        return null;
    }
    const require = createRequire(import.meta.url);
    const grpc = require(path.join(mods, '@grpc/grpc-js'));
    const loader = require(path.join(mods, '@grpc/proto-loader'));
    const { bls12_381: bls } = await import(noble);
    const def = loader.loadSync('cuzk/v1/proving.proto', {
        includeDirs: [path.join(ROOT, 'proto')],
        keepCase: true, longs: String, enums: String, defaults: true,
    });
    return { grpc, pkg: grpc.loadPackageDefinition(def).cuzk.v1, bls };
}

// ---------------------------------------------------------------------------------------------
// The daemon
// ---------------------------------------------------------------------------------------------

export class Daemon {
    /** Starts `bin` on a unix socket under `dir` with the parameter cache `params`. */
    static async start(oracles, bin, dir, params, extra = []) {
        const d = new Daemon();
        fs.mkdirSync(dir, { recursive: true });
        d.dir = dir;
        d.sock = path.join(dir, 'run', 'cuzk.sock');
        d.logPath = path.join(dir, 'cuzkd.log');
        const log = fs.openSync(d.logPath, 'w');
        const args = ['--listen', 'unix://' + d.sock, '--param-cache', params, '--socket-mode', '0600',
            ...extra];
        d.child = spawn(bin, args, { stdio: ['ignore', log, log] });
        d.code = null;
        d.exited = new Promise((resolve) => d.child.on('exit', (code, sig) => {
            d.code = code === null ? sig : code;
            resolve(d.code);
        }));
        for (let i = 0; i < 600 && d.code === null; i++) {
            if (fs.existsSync(d.sock) && d.log().includes('event=ready')) {
                break;
            }
            await sleep(50);
        }
        if (d.code !== null || !fs.existsSync(d.sock)) {
            throw new Error(`cuzkd did not start (exit ${d.code}):\n${d.log()}`);
        }
        d.client = new oracles.pkg.ProvingEngine('unix://' + d.sock, oracles.grpc.credentials.createInsecure(), {
            'grpc.max_receive_message_length': MAX_MSG, 'grpc.max_send_message_length': MAX_MSG,
        });
        return d;
    }

    log() {
        return fs.existsSync(this.logPath) ? fs.readFileSync(this.logPath, 'utf8') : '';
    }

    rpc(method, req, deadlineMs = 30 * 60 * 1000) {
        return new Promise((resolve) => {
            this.client[method](req, { deadline: Date.now() + deadlineMs }, (err, res) => resolve({ err, res }));
        });
    }

    /** SIGTERM (or `signal`) and the exit status; 'hung' after 60 s. */
    async stop(signal = 'SIGTERM') {
        this.client.close();
        if (this.code === null) {
            this.child.kill(signal);
        }
        return Promise.race([this.exited, sleep(60000).then(() => 'hung')]);
    }

    kill() {
        if (this.code === null) {
            this.child.kill('SIGKILL');
        }
    }
}

export function tmpDir(prefix) {
    return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// ---------------------------------------------------------------------------------------------
// Requests from e2e_vanilla's manifest (what Curio sets per kind, vanilla-proofs.md 4.4)
// ---------------------------------------------------------------------------------------------

export const hex = (h) => Buffer.from(h, 'hex');

/** The inputs in directory `dir` (manifest.json and the files it names). */
export function loadInputs(dir) {
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const read = (f) => fs.readFileSync(path.join(dir, f));
    return { m, dir, read };
}

export function porepRequest(inp, id, file = inp.m.porep.file, more = {}) {
    return Object.assign({
        request_id: id, proof_kind: 'POREP_SEAL_COMMIT', sector_size: inp.m.sector_size,
        registered_proof: inp.m.porep.registered_proof, priority: 'NORMAL',
        vanilla_proof: inp.read(file), sector_number: inp.m.porep.sector_number, miner_id: inp.m.miner_id,
    }, more);
}

export function postRequest(inp, kind, id, spec, more = {}) {
    const r = {
        request_id: id, proof_kind: kind, sector_size: inp.m.sector_size,
        registered_proof: spec.registered_proof, priority: kind === 'WINNING_POST' ? 'CRITICAL' : 'HIGH',
        vanilla_proofs: spec.files.map((f) => inp.read(f)), miner_id: inp.m.miner_id,
        randomness: hex(spec.randomness),
    };
    if (kind === 'WINDOW_POST_PARTITION') {
        r.partition_index = spec.partition_index;
    }
    return Object.assign(r, more);
}

export function snapRequest(inp, id, more = {}) {
    const s = inp.m.snap;
    return Object.assign({
        request_id: id, proof_kind: 'SNAP_DEALS_UPDATE', sector_size: inp.m.sector_size,
        registered_proof: s.registered_proof, priority: 'NORMAL',
        vanilla_proofs: s.files.map((f) => inp.read(f)), sector_number: inp.m.porep.sector_number,
        miner_id: inp.m.miner_id, comm_r_old: hex(s.comm_r_old), comm_r_new: hex(s.comm_r_new),
        comm_d_new: hex(s.comm_d_new),
    }, more);
}

// ---------------------------------------------------------------------------------------------
// Public inputs, as the chain's verifier derives them (spec vanilla-proofs.md 1.7, 2.3-2.5, 3.4)
// ---------------------------------------------------------------------------------------------

const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

/** Little-endian bytes -> bigint; must be a field element. */
export function le(bytes) {
    let x = 0n;
    for (let i = bytes.length - 1; i >= 0; i--) {
        x = (x << 8n) | BigInt(bytes[i]);
    }
    return x;
}

function fr(bytes, what) {
    const x = le(bytes);
    if (x >= R) {
        throw new Error(`${what} is not a field element`);
    }
    return x;
}

const sha256 = (...parts) => crypto.createHash('sha256').update(Buffer.concat(parts)).digest();
const u32le = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const u64le = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };

function sizeOfName(name) {
    const m = /(\d+)(KiB|MiB|GiB)/.exec(name);
    return Number(m[1]) * { KiB: 1024, MiB: 1 << 20, GiB: 1 << 30 }[m[2]];
}

/** The C1 JSON object of a request payload (bare or Curio's wrapper). */
export function parseC1(buf) {
    const o = JSON.parse(buf.toString('utf8'));
    return o.Phase1Out !== undefined ? JSON.parse(Buffer.from(o.Phase1Out, 'base64').toString('utf8')) : o;
}

/** PoRep partition k: [replica_id, comm_d, comm_r, per challenge c: c, 6 DRG parents, 8 expander
 *  parents, c, c, c]. Interactive challenges are derived here (sha256(replica_id || seed ||
 *  u32_le(j)) mod (N - 1) + 1, sealing.md 5.1) and must be the challenges the proofs open;
 *  synthetic ones (ChaCha20 selection, not re-derived here) are taken from the proofs. The
 *  parents are those the column proofs open (the C side checks them against the graph). */
export function porepInputs(c1, k) {
    const name = c1.registered_proof;
    const nodes = BigInt(sizeOfName(name) / 32);
    const parts = Object.values(c1.vanilla_proofs)[0];
    const part = parts[k];
    const cpp = part.length;
    const rid = Buffer.from(c1.replica_id), seed = Buffer.from(c1.seed);
    const x = [fr(rid, 'replica_id'), fr(Buffer.from(c1.comm_d), 'comm_d'), fr(Buffer.from(c1.comm_r), 'comm_r')];
    const interactive = !name.includes('Feat_');
    part.forEach((p, i) => {
        const rc = p.replica_column_proofs;
        let c = BigInt(rc.c_x.column.index);
        if (interactive) {
            const want = le(sha256(rid, seed, u32le(cpp * k + i))) % (nodes - 1n) + 1n;
            if (want !== c) {
                throw new Error(`challenge ${i} of partition ${k}: proof opens ${c}, seed gives ${want}`);
            }
        }
        if (BigInt(p.labeling_proofs[0].node) !== c) {
            throw new Error(`challenge ${i}: labeling proof node differs`);
        }
        x.push(c, ...rc.drg_parents.map((q) => BigInt(q.column.index)),
            ...rc.exp_parents.map((q) => BigInt(q.column.index)), c, c, c);
    });
    return x;
}

function leaf(rnd, sectorId, idx, nodes) {
    return sha256(rnd, u64le(sectorId), u64le(idx)).readBigUInt64LE(0) % BigInt(nodes);
}

/** WinningPoSt (registered proofs 0..4, API V1_0): 66 x [comm_r, leaf(R, sector, i)]. */
export function winningInputs(rnd, sector, sectorSize) {
    const x = [];
    const commR = fr(hex(sector.comm_r), 'comm_r');
    for (let i = 0; i < 66; i++) {
        x.push(commR, leaf(rnd, sector.id, i, sectorSize / 32));
    }
    return x;
}

/** WindowPoSt partition: per sector [comm_r, 10 leaves], padded with the last sector's block
 *  to the circuit's sector count; challenge index (partition * count + i) * 10 + j for API V1_0
 *  (registered proofs 5..9), j for V1_2 (10..14). */
export function windowInputs(rnd, sectors, partition, registeredProof, sectorSize) {
    const count = sectorSize === 32 * 2 ** 30 ? 2349 : sectorSize === 64 * 2 ** 30 ? 2300 : 2;
    const v12 = registeredProof >= 10;
    const x = [];
    let block = [];
    for (let i = 0; i < count; i++) {
        if (i < sectors.length) {
            const s = sectors[i];
            block = [fr(hex(s.comm_r), 'comm_r')];
            for (let j = 0; j < 10; j++) {
                const idx = v12 ? j : (partition * count + i) * 10 + j;
                block.push(leaf(rnd, s.id, idx, sectorSize / 32));
            }
        }
        x.push(...block);
    }
    return x;
}

/** SnapDeals partition k: [k | h_select << log2(P), comm_r_old, comm_d_new, comm_r_new] with P
 *  and h_select from storage-proofs-update constants (vanilla-proofs.md 3.3). */
export function snapInputs(k, s, sectorSize) {
    const nodes = sectorSize / 32;
    const P = nodes <= 2 ** 8 ? 1 : nodes <= 2 ** 10 ? 2 : nodes <= 2 ** 19 ? 4 : 16;
    const hSelect = nodes <= 2 ** 10 ? 1n : 8n;
    const bits = BigInt(Math.log2(P));
    return [BigInt(k) | (hSelect << bits), fr(hex(s.comm_r_old), 'comm_r_old'),
        fr(hex(s.comm_d_new), 'comm_d_new'), fr(hex(s.comm_r_new), 'comm_r_new')];
}

// ---------------------------------------------------------------------------------------------
// Groth16 verification with @noble/curves
// ---------------------------------------------------------------------------------------------

/** A bellperson .vk file (uncompressed points, ic count at byte 864). */
export function readVk(bls, file) {
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

/** e(A, B) == e(alpha, beta) e(ic0 + sum x_i ic_{i+1}, gamma) e(C, delta) for one 192-byte
 *  proof (A, B, C compressed). Throws when the input count does not fit the key. */
export function verifyGroth16(bls, vk, proof, x) {
    if (x.length + 1 !== vk.ic.length) {
        throw new Error(`${x.length} public inputs for a key with ${vk.ic.length - 1}`);
    }
    const A = bls.G1.Point.fromBytes(proof.subarray(0, 48));
    const B = bls.G2.Point.fromBytes(proof.subarray(48, 144));
    const C = bls.G1.Point.fromBytes(proof.subarray(144, 192));
    let acc = vk.ic[0];
    x.forEach((xi, i) => {
        if (xi % R !== 0n) {
            acc = acc.add(vk.ic[i + 1].multiply(xi % R));
        }
    });
    const Fp12 = bls.fields.Fp12;
    const lhs = bls.pairing(A, B);
    const rhs = Fp12.mul(Fp12.mul(bls.pairing(vk.alpha, vk.beta), bls.pairing(acc, vk.gamma)),
        bls.pairing(C, vk.delta));
    return Fp12.eql(lhs, rhs);
}

/** Verifies every 192-byte partition proof of `proof` against inputsOf(k). */
export function verifyAll(bls, vk, proof, inputsOf) {
    if (proof.length === 0 || proof.length % 192 !== 0) {
        return false;
    }
    for (let k = 0; k < proof.length / 192; k++) {
        if (!verifyGroth16(bls, vk, proof.subarray(192 * k, 192 * k + 192), inputsOf(k))) {
            return false;
        }
    }
    return true;
}

/** One line of the timing table from an AwaitProofResponse. */
export function timingRow(kind, r, wallMs) {
    const f = (v) => String(v).padStart(9);
    return `${kind.padEnd(26)}${f(r.queue_wait_ms)}${f(r.srs_load_ms)}${f(r.synthesis_ms)}` +
        `${f(r.gpu_compute_ms)}${f(r.total_ms)}${f(Math.round(wallMs))}`;
}
export const TIMING_HEADER = `${'proof kind'.padEnd(26)}${'queue'.padStart(9)}${'srs_load'.padStart(9)}` +
    `${'synth'.padStart(9)}${'prove'.padStart(9)}${'total'.padStart(9)}${'wall'.padStart(9)}   (ms)`;
