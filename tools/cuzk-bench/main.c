/* main.c - cuzk-bench: benchmarks and diagnostics for cuzk. Dispatches to the subcommand
 * named by argv[1] through the table below; `cuzk-bench <command> --help` documents each.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_cmd_t COMMANDS[] = {
    {"setup", "generate test parameters (.params + .vk) for a circom .r1cs", cmd_setup},
    {"prove", "prove a circom circuit (.r1cs + .wtns) with .params; writes a 192-byte proof",
     cmd_prove},
    {"verify", "verify proof bytes against a .vk and public.json (exit 0 iff valid)", cmd_verify},
    {"export-snarkjs", "write a .vk and a proof as snarkjs verification_key.json / proof.json",
     cmd_export_snarkjs},
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
