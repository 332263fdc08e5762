/* main.c - cuzk-bench: benchmarks and diagnostics for cuzk. Dispatches to the subcommand
 * named by argv[1] through the table below; `cuzk-bench <command> --help` documents each.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_cmd_t COMMANDS[] = {
    {"setup", "test parameters: Filecoin circuits (--proof KIND) or a circom .r1cs (--r1cs)",
     cmd_setup_any},
    {"prove", "prove a circom circuit (.r1cs + .wtns) with .params; writes a 192-byte proof",
     cmd_prove},
    {"check-params", "load a .params (and .vk) as cuzkd does: sections, load time, bad bytes",
     cmd_check_params},
    {"gpu-hold",
     "hold all but --leave-mib of a GPU's memory until killed (emulates a smaller card)",
     cmd_gpu_hold},
    {"verify", "verify proof bytes against a .vk and public.json (exit 0 iff valid)", cmd_verify},
    {"export-snarkjs", "write a .vk and a proof as snarkjs verification_key.json / proof.json",
     cmd_export_snarkjs},
    {"gen-vanilla", "seal a test sector and write a vanilla proof (+ FILE.json sidecar)",
     cmd_gen_vanilla},
    {"check-vanilla", "run the circuit on a vanilla proof with the checker (exit 0 iff sound)",
     cmd_check_vanilla},
    {"single", "cuzkd: prove one request (Prove) and print per-stage timings", cmd_single},
    {"batch", "cuzkd: N concurrent SubmitProof + AwaitProof, min/median/max", cmd_batch},
    {"stress", "cuzkd: bounded proofs at a concurrency for a bounded time", cmd_stress},
    {"status", "cuzkd: GetStatus as a table (or --json)", cmd_status},
    {"preload", "cuzkd: load a circuit's parameters (PreloadSRS)", cmd_preload},
    {"evict", "cuzkd: drop a circuit's parameters (EvictSRS)", cmd_evict},
    {"metrics", "cuzkd: print the Prometheus metrics text (GetMetrics)", cmd_metrics},
    {"circuit-info", "circuit shape: inputs, aux, constraints, digest, parameter file",
     cmd_circuit_info},
    {"synth", "synthesis only, per partition: time, constraints/s, peak memory", cmd_synth},
    {"micro", "one kernel (ntt, quotient, msm-g1, sha256, ...) warmed up and repeated", cmd_micro},
    {"ab", "the same proof under two cuzkd configs, interleaved; per-stage significance", cmd_ab},
    {"timeline", "SVG of the pipeline (lanes, per-stage bars) from cuzkd --timing logs",
     cmd_timeline},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < ARRAY_LEN(COMMANDS); i++) {
        fprintf(f, "  %-16s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    }
    fprintf(f, "\n'cuzk-bench <command> --help' describes a command's options.\n"
               "exit codes: 0 success (verify: valid), 1 verify: invalid proof, 2 error\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
    }
    for (size_t i = 0; i < ARRAY_LEN(COMMANDS); i++) {
        if (strcmp(argv[1], COMMANDS[i].name) == 0) {
            return COMMANDS[i].run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "cuzk-bench: error: unknown command '%s' (cuzk-bench --help lists them)\n",
            argv[1]);
    return CLI_EXIT_ERROR;
}
