/*
 * astra-sim-workload-gen: the built-in LLM training workload generator.
 *
 *   astra-sim-workload-gen --preset=llama3-8b --tp=8 --pp=4 --dp=16 --sp=1 \
 *       --global-batch=512 --output=traces/llama8b
 *   astra-sim-runner --workload-configuration=traces/llama8b \
 *       --comm-group-configuration=traces/llama8b.json \
 *       --system-configuration=sys.json --network-configuration=net.yml
 *
 * Writes PREFIX.<rank>.et for every NPU (PREFIX.<rank>.et.gz with --gzip=1) and the
 * communicator-group JSON (PREFIX.json), and prints the shape, the parallel layout,
 * parameter and FLOP counts and a per-rank memory estimate. Dense and MoE
 * transformers; data, tensor (optionally sequence), pipeline (1F1B, GPipe), expert
 * parallelism and ZeRO-1/2/3. doc/workload-generator.rst describes every option.
 * Exit status: 0 ok, 1 bad option or shape (the message names the option).
 */

#include "ns3/astra-diagnostics.h"
#include "ns3/llm-workload.h"

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&ns3::astra::LlmWorkloadGenMain, argc, argv);
}
