/*
 * Command line of astra-sim-workload-gen (LlmWorkloadGenMain, declared in
 * llm-workload.h): options -> LlmWorkloadConfig -> files and a summary.
 */

#include "llm-workload.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/command-line.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <type_traits>

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

/// Numeric options are registered as text and converted strictly after parsing, so that
/// "--tp=-1", "--zero=1.5" or "--layers=8x" are errors naming the option instead of being
/// wrapped or truncated by stream extraction.
class NumericOptions
{
  public:
    template <typename T>
    void Add(CommandLine& cmd, const std::string& name, const std::string& help, T& target)
    {
        auto e = std::make_unique<Entry>();
        e->name = name;
        std::ostringstream os;
        os << target;
        e->text = os.str();
        e->initial = e->text;
        e->set = [&target, name](const std::string& v) { target = Convert<T>(name, v); };
        cmd.AddValue(name, help, e->text);
        m_entries.push_back(std::move(e));
    }

    /// Convert every option given on the command line.
    void Apply() const
    {
        for (const auto& e : m_entries)
        {
            if (e->text != e->initial)
            {
                e->set(e->text);
            }
        }
    }

  private:
    struct Entry
    {
        std::string name;
        std::string text;
        std::string initial;
        std::function<void(const std::string&)> set;
    };

    template <typename T>
    static T Convert(const std::string& name, const std::string& v)
    {
        const std::string bad = "--" + name + "=" + v + ": ";
        if constexpr (std::is_floating_point_v<T>)
        {
            char* end = nullptr;
            errno = 0;
            const double d = std::strtod(v.c_str(), &end);
            if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE)
            {
                throw InputError(bad + "not a number");
            }
            return static_cast<T>(d);
        }
        else
        {
            const bool neg = !v.empty() && v[0] == '-';
            const std::string digits = neg ? v.substr(1) : v;
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
                (neg && std::is_unsigned_v<T>))
            {
                throw InputError(bad + (std::is_unsigned_v<T> ? "not a non-negative integer"
                                                              : "not an integer"));
            }
            errno = 0;
            const unsigned long long u = std::strtoull(digits.c_str(), nullptr, 10);
            const unsigned long long max =
                neg ? (unsigned long long)(std::numeric_limits<T>::max()) + 1
                    : (unsigned long long)(std::numeric_limits<T>::max());
            if (errno == ERANGE || u > max)
            {
                throw InputError(bad + "out of range (at most " +
                                 std::to_string(std::numeric_limits<T>::max()) + ")");
            }
            return neg ? static_cast<T>(-static_cast<long long>(u)) : static_cast<T>(u);
        }
    }

    std::vector<std::unique_ptr<Entry>> m_entries;
};

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
    NumericOptions num;
    cmd.Usage("Generate the Chakra traces (PREFIX.<rank>.et) and the communicator-group JSON "
              "of one training iteration of a transformer LLM, for astra-sim-runner "
              "--workload-configuration=PREFIX --comm-group-configuration=PREFIX.json.\n"
              "doc/workload-generator.rst describes every option and the generated graph.");
    cmd.AddValue("preset",
                 "model preset: gpt3-175b, llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b "
                 "(other options override its values)",
                 preset);
    cmd.AddValue("list-presets", "print the presets and their shapes, then exit", listPresets);
    num.Add(cmd, "layers", "transformer layers", s.layers);
    num.Add(cmd, "hidden", "hidden size", s.hidden);
    num.Add(cmd, "ffn-hidden", "FFN hidden size", s.ffnHidden);
    cmd.AddValue("ffn", "FFN kind: gelu (2 matrices) or swiglu (3 matrices)", ffn);
    num.Add(cmd, "heads", "attention heads", s.heads);
    num.Add(cmd, "kv-heads", "key/value heads (GQA; = heads for multi-head attention)", s.kvHeads);
    num.Add(cmd, "vocab", "vocabulary size", s.vocab);
    num.Add(cmd, "seq", "sequence length (tokens)", s.seqLength);
    cmd.AddValue("tied-embeddings", "output layer shares the embedding weights", s.tiedEmbeddings);
    num.Add(cmd, "experts", "experts per MoE layer (1 = dense)", s.experts);
    num.Add(cmd, "top-k", "experts per token", s.topK);
    num.Add(cmd,
            "expert-ffn-hidden",
            "FFN hidden size of one expert (0 = ffn-hidden)",
            s.expertFfnHidden);
    num.Add(cmd, "moe-every", "every N-th layer is an MoE layer", s.moeEvery);
    num.Add(cmd, "global-batch", "sequences per iteration (all replicas)", c.globalBatch);
    num.Add(cmd,
            "micro-batch",
            "sequences per micro-batch per data-parallel replica",
            c.microBatch);
    num.Add(cmd, "npus", "world size (0 = dp x tp x pp; with --dp=0 dp is derived)", c.npus);
    num.Add(cmd, "dp", "data-parallel degree (0 = npus / (tp x pp))", c.dp);
    num.Add(cmd, "tp", "tensor-parallel degree", c.tp);
    num.Add(cmd, "pp", "pipeline stages", c.pp);
    num.Add(cmd, "ep", "expert-parallel degree (divides dp)", c.ep);
    cmd.AddValue("sp",
                 "sequence parallelism (all-gather / reduce-scatter instead of all-reduce)",
                 c.sequenceParallel);
    cmd.AddValue("vocab-parallel", "embedding and output layer split over TP", c.vocabParallel);
    cmd.AddValue("rank-order", "parallel dimensions innermost first, e.g. tp,dp,pp", c.rankOrder);
    cmd.AddValue("schedule", "pipeline schedule: 1f1b or gpipe", schedule);
    num.Add(cmd, "zero", "ZeRO stage: 0, 1, 2 or 3 (3 = FSDP)", zero);
    cmd.AddValue("grad-sync", "layer gradient reduction: iteration or microbatch", gradSync);
    num.Add(cmd,
            "bucket-mib",
            "gradient bucket size in MiB (0 = one bucket per layer)",
            c.bucketMiB);
    cmd.AddValue("overlap-grad-reduce",
                 "start each bucket during backward (0: after backward)",
                 c.overlapGradReduce);
    cmd.AddValue("recompute", "activation recomputation: none or full", recompute);
    num.Add(cmd,
            "bytes-per-element",
            "bytes of an activation / parameter element",
            c.bytesPerElement);
    num.Add(cmd, "grad-bytes", "bytes of a gradient element (0 = bytes-per-element)", c.gradBytes);
    num.Add(cmd,
            "capacity-factor",
            "MoE tokens per expert relative to a fair share",
            c.capacityFactor);
    num.Add(cmd,
            "compute-tflops",
            "write COMP durations at this throughput (0: roofline inputs only)",
            c.computeTflops);
    num.Add(cmd,
            "memory-gbps",
            "with compute-tflops: durations = max(FLOPs/throughput, bytes/bandwidth)",
            c.memoryGBps);
    cmd.AddValue("optimizer", "an Adam step closes the iteration", c.optimizerStep);
    cmd.AddValue("offload-optimizer",
                 "MEM_LOAD / MEM_STORE of the optimizer state around the step",
                 c.offloadOptimizer);
    num.Add(cmd,
            "optimizer-bytes",
            "optimizer state bytes per parameter",
            c.optimizerBytesPerParam);
    cmd.AddValue("output", "output prefix: writes PREFIX.<rank>.et and PREFIX.json", output);
    cmd.AddValue("groups", "communicator-group JSON path (default PREFIX.json)", groups);
    cmd.AddValue("gzip", "gzip the traces (PREFIX.<rank>.et.gz; the reader takes them)", gzip);
    num.Add(cmd, "gzip-level", "gzip level 0..9 (-1 = zlib default 6)", gzipLevel);
    cmd.AddValue("legacy", "legacy 2023 layout (no GlobalMetadata, all deps in ctrl_deps)", legacy);
    num.Add(cmd, "threads", "writer threads (0 = all cores)", threads);
    cmd.AddValue("dry-run", "print the summary only, write nothing", dryRun);
    cmd.Parse(argc, argv);
    num.Apply();

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
