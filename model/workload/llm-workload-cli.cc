/*
 * Command line of astra-sim-workload-gen (LlmWorkloadGenMain, declared in
 * llm-workload.h): options -> LlmWorkloadConfig -> files and a summary.
 */

#include "llm-workload.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/command-line.h"

#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>

namespace ns3
{
namespace astra
{

namespace
{

std::string
Closest(const std::string& s, const std::vector<std::string>& names)
{
    // the generator's did-you-mean lives in llm-workload.cc; a short local version
    size_t best = std::string::npos;
    std::string which;
    for (const auto& n : names)
    {
        std::vector<size_t> prev(n.size() + 1);
        std::vector<size_t> cur(n.size() + 1);
        for (size_t j = 0; j <= n.size(); ++j)
        {
            prev[j] = j;
        }
        for (size_t i = 1; i <= s.size(); ++i)
        {
            cur[0] = i;
            for (size_t j = 1; j <= n.size(); ++j)
            {
                cur[j] = std::min(
                    {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] == n[j - 1] ? 0 : 1)});
            }
            std::swap(prev, cur);
        }
        if (prev[n.size()] < best)
        {
            best = prev[n.size()];
            which = n;
        }
    }
    return best <= 2 ? " (did you mean '" + which + "'?)" : "";
}

/// Parse one of a fixed set of names; InputError with the accepted names otherwise.
template <typename T>
T
Choose(const std::string& option,
       const std::string& value,
       const std::vector<std::pair<std::string, T>>& choices)
{
    std::vector<std::string> names;
    for (const auto& [n, v] : choices)
    {
        if (n == value)
        {
            return v;
        }
        names.push_back(n);
    }
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
    {
        list += (i ? ", " : "") + names[i];
    }
    throw InputError(option + "=" + value + ": unknown value" + Closest(value, names) +
                     "; accepted: " + list);
}

std::string
Human(double bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4)
    {
        bytes /= 1024;
        ++u;
    }
    std::ostringstream os;
    os << std::fixed << std::setprecision(u == 0 ? 0 : 2) << bytes << " " << units[u];
    return os.str();
}

} // namespace

int
LlmWorkloadGenMain(int argc, char** argv)
{
    // --preset is applied first so that every other option overrides the preset's value
    std::string preset;
    for (int i = 1; i < argc; ++i)
    {
        const char* key = "--preset=";
        if (std::strncmp(argv[i], key, std::strlen(key)) == 0)
        {
            preset = argv[i] + std::strlen(key);
        }
    }
    LlmWorkloadConfig c;
    c.globalBatch = 0;
    if (!preset.empty())
    {
        c = LlmWorkloadConfig::FromPreset(preset);
    }
    LlmModelShape& s = c.model;

    std::string ffn = s.ffn == LlmFfnKind::SWIGLU ? "swiglu" : "gelu";
    std::string schedule = "1f1b";
    std::string gradSync = "iteration";
    std::string recompute = "none";
    std::string output;
    std::string groups;
    bool gzip = false;
    int gzipLevel = -1;
    bool legacy = false;
    uint32_t threads = 0;
    bool dryRun = false;
    bool listPresets = false;
    uint32_t zero = c.zeroStage;

    CommandLine cmd("astra-sim-workload-gen");
    cmd.Usage("Generate the Chakra traces (PREFIX.<rank>.et) and the communicator-group JSON "
              "of one training iteration of a transformer LLM, for astra-sim-runner "
              "--workload-configuration=PREFIX --comm-group-configuration=PREFIX.json.\n"
              "doc/workload-generator.rst describes every option and the generated graph.");
    cmd.AddValue("preset",
                 "model preset: gpt3-175b, llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b "
                 "(other options override its values)",
                 preset);
    cmd.AddValue("list-presets", "print the presets and their shapes, then exit", listPresets);
    cmd.AddValue("layers", "transformer layers", s.layers);
    cmd.AddValue("hidden", "hidden size", s.hidden);
    cmd.AddValue("ffn-hidden", "FFN hidden size", s.ffnHidden);
    cmd.AddValue("ffn", "FFN kind: gelu (2 matrices) or swiglu (3 matrices)", ffn);
    cmd.AddValue("heads", "attention heads", s.heads);
    cmd.AddValue("kv-heads", "key/value heads (GQA; = heads for multi-head attention)", s.kvHeads);
    cmd.AddValue("vocab", "vocabulary size", s.vocab);
    cmd.AddValue("seq", "sequence length (tokens)", s.seqLength);
    cmd.AddValue("tied-embeddings", "output layer shares the embedding weights", s.tiedEmbeddings);
    cmd.AddValue("experts", "experts per MoE layer (1 = dense)", s.experts);
    cmd.AddValue("top-k", "experts per token", s.topK);
    cmd.AddValue("expert-ffn-hidden",
                 "FFN hidden size of one expert (0 = ffn-hidden)",
                 s.expertFfnHidden);
    cmd.AddValue("moe-every", "every N-th layer is an MoE layer", s.moeEvery);
    cmd.AddValue("global-batch", "sequences per iteration (all replicas)", c.globalBatch);
    cmd.AddValue("micro-batch",
                 "sequences per micro-batch per data-parallel replica",
                 c.microBatch);
    cmd.AddValue("npus", "world size (0 = dp x tp x pp; with --dp=0 dp is derived)", c.npus);
    cmd.AddValue("dp", "data-parallel degree (0 = npus / (tp x pp))", c.dp);
    cmd.AddValue("tp", "tensor-parallel degree", c.tp);
    cmd.AddValue("pp", "pipeline stages", c.pp);
    cmd.AddValue("ep", "expert-parallel degree (divides dp)", c.ep);
    cmd.AddValue("sp",
                 "sequence parallelism (all-gather / reduce-scatter instead of all-reduce)",
                 c.sequenceParallel);
    cmd.AddValue("vocab-parallel", "embedding and output layer split over TP", c.vocabParallel);
    cmd.AddValue("rank-order", "parallel dimensions innermost first, e.g. tp,dp,pp", c.rankOrder);
    cmd.AddValue("schedule", "pipeline schedule: 1f1b or gpipe", schedule);
    cmd.AddValue("zero", "ZeRO stage: 0, 1, 2 or 3 (3 = FSDP)", zero);
    cmd.AddValue("grad-sync", "layer gradient reduction: iteration or microbatch", gradSync);
    cmd.AddValue("bucket-mib",
                 "gradient bucket size in MiB (0 = one bucket per layer)",
                 c.bucketMiB);
    cmd.AddValue("overlap-grad-reduce",
                 "start each bucket during backward (0: after backward)",
                 c.overlapGradReduce);
    cmd.AddValue("recompute", "activation recomputation: none or full", recompute);
    cmd.AddValue("bytes-per-element",
                 "bytes of an activation / parameter element",
                 c.bytesPerElement);
    cmd.AddValue("grad-bytes", "bytes of a gradient element (0 = bytes-per-element)", c.gradBytes);
    cmd.AddValue("capacity-factor",
                 "MoE tokens per expert relative to a fair share",
                 c.capacityFactor);
    cmd.AddValue("compute-tflops",
                 "write COMP durations at this throughput (0: roofline inputs only)",
                 c.computeTflops);
    cmd.AddValue("memory-gbps",
                 "with compute-tflops: durations = max(FLOPs/throughput, bytes/bandwidth)",
                 c.memoryGBps);
    cmd.AddValue("optimizer", "an Adam step closes the iteration", c.optimizerStep);
    cmd.AddValue("offload-optimizer",
                 "MEM_LOAD / MEM_STORE of the optimizer state around the step",
                 c.offloadOptimizer);
    cmd.AddValue("optimizer-bytes",
                 "optimizer state bytes per parameter",
                 c.optimizerBytesPerParam);
    cmd.AddValue("output", "output prefix: writes PREFIX.<rank>.et and PREFIX.json", output);
    cmd.AddValue("groups", "communicator-group JSON path (default PREFIX.json)", groups);
    cmd.AddValue("gzip", "gzip the traces (PREFIX.<rank>.et.gz; the reader takes them)", gzip);
    cmd.AddValue("gzip-level", "gzip level 0..9 (-1 = zlib default 6)", gzipLevel);
    cmd.AddValue("legacy", "legacy 2023 layout (no GlobalMetadata, all deps in ctrl_deps)", legacy);
    cmd.AddValue("threads", "writer threads (0 = all cores)", threads);
    cmd.AddValue("dry-run", "print the summary only, write nothing", dryRun);
    cmd.Parse(argc, argv);

    if (listPresets)
    {
        for (const auto& n : LlmModelShape::PresetNames())
        {
            const LlmModelShape p = LlmModelShape::Preset(n);
            std::cout << std::left << std::setw(14) << n << " layers " << p.layers << ", hidden "
                      << p.hidden << ", FFN " << p.ffnHidden << ", heads " << p.heads
                      << ", KV heads " << p.kvHeads << ", vocab " << p.vocab << ", seq "
                      << p.seqLength;
            if (p.experts > 1)
            {
                std::cout << ", " << p.experts << " experts top-" << p.topK;
            }
            std::cout << "\n";
        }
        return 0;
    }
    if (output.empty() && !dryRun)
    {
        throw InputError("--output=PREFIX is required (files PREFIX.<rank>.et and PREFIX.json)");
    }
    s.ffn = Choose<LlmFfnKind>("--ffn",
                               ffn,
                               {{"gelu", LlmFfnKind::GELU}, {"swiglu", LlmFfnKind::SWIGLU}});
    c.schedule = ParseLlmSchedule(schedule);
    c.gradSync = Choose<LlmGradSync>(
        "--grad-sync",
        gradSync,
        {{"iteration", LlmGradSync::ITERATION}, {"microbatch", LlmGradSync::MICROBATCH}});
    c.recompute =
        Choose<LlmRecompute>("--recompute",
                             recompute,
                             {{"none", LlmRecompute::NONE}, {"full", LlmRecompute::FULL}});
    c.zeroStage = zero;
    if (threads > 4096)
    {
        throw InputError("--threads=" + std::to_string(threads) + " out of range (0 .. 4096)");
    }
    if (gzipLevel < -1 || gzipLevel > 9)
    {
        throw InputError("--gzip-level=" + std::to_string(gzipLevel) +
                         " out of range (0 .. 9, or -1 for the default)");
    }
    if (!gzip && gzipLevel != -1)
    {
        throw InputError("--gzip-level needs --gzip=1");
    }

    LlmWorkloadGenerator gen(c); // validates
    std::cout << gen.Describe();
    if (dryRun)
    {
        return 0;
    }
    const std::filesystem::path parent = std::filesystem::path(output).parent_path();
    if (!parent.empty())
    {
        std::error_code ec;
        std::filesystem::create_directories(parent, ec);
        if (ec)
        {
            throw InputError("--output=" + output + ": cannot create directory " + parent.string() +
                             ": " + ec.message());
        }
    }
    ChakraWriteOptions wo;
    wo.gzip = gzip;
    wo.gzipLevel = gzipLevel;
    wo.legacy = legacy;
    const LlmWriteResult r = gen.Write(output, groups, wo, threads);
    std::cout << "wrote " << r.files << " traces (" << r.firstFile << " ...), " << r.nodes
              << " nodes, " << Human(double(r.rawBytes)) << " serialized";
    if (gzip)
    {
        std::cout << ", " << Human(double(r.fileBytes)) << " gzipped";
    }
    std::cout << ", in " << std::fixed << std::setprecision(2) << r.wallSeconds << " s\n"
              << "communicator groups: " << r.groupsPath << "\n"
              << "run: astra-sim-runner --workload-configuration=" << output
              << " --comm-group-configuration=" << r.groupsPath
              << " --system-configuration=SYS.json --network-configuration=NET.yml"
              << " (network with " << gen.GetNpuCount() << " NPUs)\n";
    return 0;
}

} // namespace astra
} // namespace ns3
