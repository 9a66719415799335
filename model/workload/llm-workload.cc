/*
 * Built-in LLM training workload generator (see llm-workload.h and
 * doc/workload-generator.rst for the model of every node).
 */

#include "llm-workload.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <iomanip>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

namespace ns3
{
namespace astra
{

namespace
{

std::string
Join(const std::vector<std::string>& v)
{
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
    {
        s += (i ? ", " : "") + v[i];
    }
    return s;
}

uint64_t
CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/// How a node of a stage template is specialized for a rank.
enum PatchKind : uint8_t
{
    PATCH_NONE = 0,
    PATCH_PG = 1,        // pgName = the rank's group of kind `group`
    PATCH_SEND_NEXT = 2, // src = rank, dst = next stage
    PATCH_SEND_PREV = 3, // src = rank, dst = previous stage
    PATCH_RECV_PREV = 4, // src = previous stage, dst = rank
    PATCH_RECV_NEXT = 5, // src = next stage, dst = rank
};

struct Patch
{
    uint8_t kind{PATCH_NONE};
    uint8_t group{0};
};

/// The graph shared by every rank of a pipeline stage, with what differs per rank.
struct StageTemplate
{
    std::vector<WorkloadNode> nodes;
    std::vector<Patch> patches;
};

/// A unit of parameters and compute: the embedding, a transformer layer, the output layer.
struct Unit
{
    enum Kind : uint8_t
    {
        EMB,
        LAYER,
        HEAD
    } kind{LAYER};

    uint32_t layer{0};     // global layer index (LAYER)
    bool moe{false};       // MoE layer
    uint64_t dense{0};     // dense parameters held by a rank (reduced over DP)
    uint64_t expert{0};    // expert parameters held by a rank (reduced over expert-DP)
    bool tpPartial{false}; // replicated over TP on sharded tokens: gradient all-reduce over TP
    bool tiedCopy{false};  // tied embedding with pp > 1: all-reduce with the other end
};

} // namespace

// ---------------------------------------------------------------- presets

std::vector<std::string>
LlmModelShape::PresetNames()
{
    return {"gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b"};
}

LlmModelShape
LlmModelShape::Preset(const std::string& name)
{
    LlmModelShape s;
    s.name = name;
    if (name == "gpt3-175b")
    {
        // Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1 and Sec. 2.1
        s.layers = 96;
        s.hidden = 12288;
        s.ffnHidden = 4 * 12288;
        s.heads = 96;
        s.kvHeads = 96;
        s.vocab = 50257; // the GPT-2 byte-level BPE vocabulary (Radford et al. 2019)
        s.seqLength = 2048;
        s.ffn = LlmFfnKind::GELU;
        s.tiedEmbeddings = true;
    }
    else if (name == "llama3-8b" || name == "llama3-70b" || name == "llama3-405b")
    {
        // Llama Team 2024, "The Llama 3 Herd of Models", Table 3; vocabulary and
        // context from the released config.json (vocab_size 128256, 8192 pre-training)
        s.vocab = 128256;
        s.seqLength = 8192;
        s.ffn = LlmFfnKind::SWIGLU;
        s.kvHeads = 8;
        if (name == "llama3-8b")
        {
            s.layers = 32;
            s.hidden = 4096;
            s.ffnHidden = 14336;
            s.heads = 32;
        }
        else if (name == "llama3-70b")
        {
            s.layers = 80;
            s.hidden = 8192;
            s.ffnHidden = 28672;
            s.heads = 64;
        }
        else
        {
            s.layers = 126;
            s.hidden = 16384;
            s.ffnHidden = 53248;
            s.heads = 128;
        }
    }
    else if (name == "mixtral-8x7b")
    {
        // Jiang et al. 2024, "Mixtral of Experts", Table 1
        s.layers = 32;
        s.hidden = 4096;
        s.ffnHidden = 14336;
        s.heads = 32;
        s.kvHeads = 8;
        s.vocab = 32000;
        s.seqLength = 32768;
        s.ffn = LlmFfnKind::SWIGLU;
        s.experts = 8;
        s.topK = 2;
        s.expertFfnHidden = 14336;
    }
    else
    {
        throw InputError("--preset: unknown model '" + name + "'" +
                         DidYouMean(name, PresetNames()) + "; presets: " + Join(PresetNames()));
    }
    return s;
}

LlmWorkloadConfig
LlmWorkloadConfig::FromPreset(const std::string& name)
{
    LlmWorkloadConfig c;
    c.model = LlmModelShape::Preset(name);
    c.globalBatch = 1024;
    return c;
}

LlmPipelineSchedule
ParseLlmSchedule(const std::string& s, const std::string& option)
{
    if (s == "1f1b")
    {
        return LlmPipelineSchedule::ONE_F_ONE_B;
    }
    if (s == "gpipe")
    {
        return LlmPipelineSchedule::GPIPE;
    }
    throw InputError(option + "=" + s + ": unknown schedule" + DidYouMean(s, {"1f1b", "gpipe"}) +
                     "; accepted: 1f1b, gpipe");
}

// ---------------------------------------------------------------- the plan

struct LlmWorkloadGenerator::Impl
{
    LlmWorkloadConfig c;
    uint32_t world{0};
    uint32_t m{0};         // micro-batches
    uint32_t dims[3]{};    // degree of dp, tp, pp
    uint32_t stride[3]{};  // rank stride of dp, tp, pp
    uint64_t e{2};         // activation / parameter element bytes
    uint64_t g{2};         // gradient element bytes
    uint64_t t{0};         // tokens of a micro-batch on one replica
    uint64_t tt{0};        // tokens a rank holds outside the TP regions (t / tp with SP)
    uint64_t D{0};         // hidden
    uint64_t hd{0};        // head dim
    uint64_t qkvCols{0};   // D + 2 kv dim
    uint64_t F{0};         // dense FFN hidden
    uint64_t Fe{0};        // expert FFN hidden
    uint64_t mats{2};      // FFN matrices
    uint64_t vocabRows{0}; // vocabulary rows on a rank
    uint32_t edpSize{1};   // ranks holding the same experts
    uint32_t groupSize[GROUP_KINDS]{};
    bool hasMoe{false};
    std::vector<std::vector<Unit>> units; // per stage
    std::map<std::string, std::vector<uint32_t>> groups;
    std::vector<std::string> groupOf[GROUP_KINDS]; // per rank
    std::string none;

    mutable std::mutex mutex;
    mutable std::vector<std::shared_ptr<const StageTemplate>> templates;

    void Validate();
    void Plan();
    void PlanGroups();
    std::shared_ptr<const StageTemplate> GetTemplate(uint32_t stage) const;
    void Specialize(const StageTemplate& tpl,
                    uint32_t rank,
                    std::vector<WorkloadNode>& nodes) const;

    Coord CoordOf(uint32_t rank) const
    {
        Coord k;
        k.dp = (rank / stride[0]) % dims[0];
        k.tp = (rank / stride[1]) % dims[1];
        k.pp = (rank / stride[2]) % dims[2];
        return k;
    }

    uint32_t RankOf(const Coord& k) const
    {
        return k.dp * stride[0] + k.tp * stride[1] + k.pp * stride[2];
    }
};

namespace
{

void
RequirePositive(uint64_t v, const char* option)
{
    if (v == 0)
    {
        throw InputError(std::string(option) + " must be > 0 (got 0)");
    }
}

void
RequireFinite(double v, const char* option, double lo, bool loInclusive)
{
    if (!std::isfinite(v) || v < lo || (!loInclusive && v == lo))
    {
        std::ostringstream os;
        os << option << "=" << v << " out of range (must be finite and "
           << (loInclusive ? ">= " : "> ") << lo << ")";
        throw InputError(os.str());
    }
}

void
RequireDivisible(uint64_t a, const char* aName, uint64_t b, const char* bName, const char* why)
{
    if (b == 0 || a % b != 0)
    {
        std::ostringstream os;
        os << aName << "=" << a << " is not divisible by " << bName << "=" << b << " (" << why
           << ")";
        throw InputError(os.str());
    }
}

} // namespace

void
LlmWorkloadGenerator::Impl::Validate()
{
    const LlmModelShape& s = c.model;
    RequirePositive(s.layers, "--layers");
    RequirePositive(s.hidden, "--hidden");
    RequirePositive(s.heads, "--heads");
    RequirePositive(s.kvHeads, "--kv-heads");
    RequirePositive(s.vocab, "--vocab");
    RequirePositive(s.seqLength, "--seq");
    RequirePositive(s.experts, "--experts");
    RequirePositive(s.topK, "--top-k");
    RequirePositive(s.moeEvery, "--moe-every");
    RequirePositive(c.globalBatch, "--global-batch");
    RequirePositive(c.microBatch, "--micro-batch");
    RequirePositive(c.tp, "--tp");
    RequirePositive(c.pp, "--pp");
    RequirePositive(c.ep, "--ep");
    for (const auto& [v, name] : {std::pair<uint64_t, const char*>{c.tp, "--tp"},
                                  {c.pp, "--pp"},
                                  {c.ep, "--ep"},
                                  {c.dp, "--dp"},
                                  {c.npus, "--npus"}})
    {
        if (v > (1u << 22))
        {
            throw InputError(std::string(name) + "=" + std::to_string(v) +
                             " out of range (at most 4194304)");
        }
    }
    {
        // every count of a node must fit in 64 bits: bound the largest products
        const long double t = (long double)c.microBatch * s.seqLength;
        const long double D = s.hidden;
        const long double n = std::max<long double>({D * 3,
                                                     (long double)s.ffnHidden * 3,
                                                     (long double)s.expertFfnHidden * 3,
                                                     (long double)s.vocab,
                                                     (long double)s.experts});
        const long double tok =
            t * s.topK * std::max(1.0, std::isfinite(c.capacityFactor) ? c.capacityFactor : 1.0);
        const long double params =
            (long double)s.layers * (4 * D * D + n * D * s.experts) + 2 * (long double)s.vocab * D;
        const long double worst = std::max<long double>(
            {2 * tok * D * n, 8 * t * s.seqLength * D, 10 * params * 64, t * n * 8});
        if (worst > 4.0e18L)
        {
            throw InputError("shape too large: a node's FLOPs or bytes would exceed 64 bits "
                             "(reduce --micro-batch, --seq, --hidden, --vocab or the FFN size)");
        }
    }
    RequireDivisible(s.hidden, "--hidden", s.heads, "--heads", "head dimension = hidden / heads");
    RequireDivisible(s.heads,
                     "--heads",
                     s.kvHeads,
                     "--kv-heads",
                     "grouped-query attention shares each KV head among heads / kv-heads heads");
    RequireDivisible(s.heads,
                     "--heads",
                     c.tp,
                     "--tp",
                     "tensor parallelism splits the attention heads");
    RequireDivisible(s.kvHeads,
                     "--kv-heads",
                     c.tp,
                     "--tp",
                     "tensor parallelism splits the key/value heads");
    RequireDivisible(s.layers, "--layers", c.pp, "--pp", "every pipeline stage gets layers / pp");
    const bool moe = s.experts > 1;
    const bool anyDense = !moe || s.moeEvery > 1;
    if (anyDense)
    {
        RequirePositive(s.ffnHidden, "--ffn-hidden");
        RequireDivisible(s.ffnHidden,
                         "--ffn-hidden",
                         c.tp,
                         "--tp",
                         "tensor parallelism splits the FFN columns");
    }
    if (moe && s.expertFfnHidden == 0 && s.ffnHidden == 0)
    {
        throw InputError("--expert-ffn-hidden (or --ffn-hidden) must be > 0 for MoE layers");
    }
    if (c.tp > 0x7fffffffu / c.pp)
    {
        throw InputError("--tp x --pp too large");
    }
    if (c.dp == 0)
    {
        if (c.npus == 0)
        {
            throw InputError("--dp=0 (derive from the world size) needs --npus");
        }
        if (c.npus % (c.tp * c.pp) != 0)
        {
            std::ostringstream os;
            os << "--npus=" << c.npus << " is not a multiple of --tp x --pp = " << c.tp << " x "
               << c.pp << " = " << c.tp * c.pp << " (the world size is dp x tp x pp)";
            throw InputError(os.str());
        }
        c.dp = c.npus / (c.tp * c.pp);
    }
    const uint64_t w = uint64_t(c.dp) * c.tp * c.pp;
    if (w > (1u << 22))
    {
        throw InputError("world size dp x tp x pp = " + std::to_string(w) +
                         " exceeds the generator's limit of 4194304 NPUs");
    }
    if (c.npus != 0 && w != c.npus)
    {
        std::ostringstream os;
        os << "world size --npus=" << c.npus
           << " is not the product of the degrees --dp x --tp x --pp = " << c.dp << " x " << c.tp
           << " x " << c.pp << " = " << w;
        throw InputError(os.str());
    }
    world = static_cast<uint32_t>(w);
    const uint64_t perStep = uint64_t(c.microBatch) * c.dp;
    if (c.globalBatch % perStep != 0)
    {
        std::ostringstream os;
        os << "--global-batch=" << c.globalBatch
           << " is not a multiple of --micro-batch x --dp = " << c.microBatch << " x " << c.dp
           << " = " << perStep;
        throw InputError(os.str());
    }
    if (c.globalBatch / perStep > 1000000)
    {
        throw InputError(
            "--global-batch / (--micro-batch x --dp) = " + std::to_string(c.globalBatch / perStep) +
            " micro-batches exceeds the limit of 1000000");
    }
    if (c.sequenceParallel)
    {
        if (c.tp == 1)
        {
            throw InputError("--sp=1 needs --tp > 1 (sequence parallelism splits the sequence "
                             "over the tensor-parallel group)");
        }
        RequireDivisible(s.seqLength,
                         "--seq",
                         c.tp,
                         "--tp",
                         "sequence parallelism splits the sequence over the TP group");
    }
    if (s.topK > s.experts)
    {
        throw InputError("--top-k=" + std::to_string(s.topK) +
                         " is larger than --experts=" + std::to_string(s.experts));
    }
    if (c.ep > s.experts)
    {
        throw InputError("--ep=" + std::to_string(c.ep) +
                         " is larger than --experts=" + std::to_string(s.experts) +
                         " (each expert-parallel rank needs an expert)");
    }
    if (c.ep > 1)
    {
        RequireDivisible(s.experts,
                         "--experts",
                         c.ep,
                         "--ep",
                         "every expert-parallel rank holds experts / ep experts");
        RequireDivisible(c.dp,
                         "--dp",
                         c.ep,
                         "--ep",
                         "expert parallelism is carved out of the data-parallel dimension");
    }
    if (moe && c.tp > 1 && !c.sequenceParallel)
    {
        throw InputError("MoE layers (--experts > 1) with --tp > 1 need --sp=1 (tokens are "
                         "routed from their sequence-parallel shard)");
    }
    if (c.zeroStage > 3)
    {
        throw InputError("--zero=" + std::to_string(c.zeroStage) + " out of range (0, 1, 2 or 3)");
    }
    RequireFinite(c.bucketMiB, "--bucket-mib", 0, true);
    RequireFinite(c.capacityFactor, "--capacity-factor", 0, false);
    RequireFinite(c.computeTflops, "--compute-tflops", 0, true);
    RequireFinite(c.memoryGBps, "--memory-gbps", 0, true);
    if (c.memoryGBps > 0 && c.computeTflops == 0)
    {
        throw InputError("--memory-gbps needs --compute-tflops > 0 (durations are written only "
                         "when a throughput is given)");
    }
    if (c.bytesPerElement == 0 || c.bytesPerElement > 8)
    {
        throw InputError("--bytes-per-element=" + std::to_string(c.bytesPerElement) +
                         " out of range (1 .. 8)");
    }
    if (c.gradBytes > 8)
    {
        throw InputError("--grad-bytes=" + std::to_string(c.gradBytes) +
                         " out of range (0 = --bytes-per-element, or 1 .. 8)");
    }
    if (c.offloadOptimizer && !c.optimizerStep)
    {
        throw InputError("--offload-optimizer=1 needs --optimizer=1");
    }
    if (c.optimizerBytesPerParam > 64)
    {
        throw InputError("--optimizer-bytes=" + std::to_string(c.optimizerBytesPerParam) +
                         " out of range (0 .. 64)");
    }

    // rank order: a permutation of dp, tp, pp, innermost first
    std::vector<std::string> names;
    {
        std::string cur;
        for (char ch : c.rankOrder + ",")
        {
            if (ch == ',')
            {
                names.push_back(cur);
                cur.clear();
            }
            else if (ch != ' ')
            {
                cur.push_back(ch);
            }
        }
    }
    const std::vector<std::string> valid{"dp", "tp", "pp"};
    std::set<std::string> seen;
    for (const auto& n : names)
    {
        if (std::find(valid.begin(), valid.end(), n) == valid.end())
        {
            throw InputError("--rank-order=" + c.rankOrder + ": unknown dimension '" + n + "'" +
                             DidYouMean(n, valid) + "; expected a permutation of dp, tp, pp");
        }
        if (!seen.insert(n).second)
        {
            throw InputError("--rank-order=" + c.rankOrder + ": '" + n + "' appears twice");
        }
    }
    if (seen.size() != 3)
    {
        throw InputError("--rank-order=" + c.rankOrder +
                         ": expected a permutation of dp, tp, pp (innermost first)");
    }
    dims[0] = c.dp;
    dims[1] = c.tp;
    dims[2] = c.pp;
    uint32_t st = 1;
    for (const auto& n : names)
    {
        const int d = n == "dp" ? 0 : (n == "tp" ? 1 : 2);
        stride[d] = st;
        st *= dims[d];
    }
}

void
LlmWorkloadGenerator::Impl::Plan()
{
    const LlmModelShape& s = c.model;
    e = c.bytesPerElement;
    g = c.gradBytes == 0 ? c.bytesPerElement : c.gradBytes;
    m = static_cast<uint32_t>(c.globalBatch / (uint64_t(c.microBatch) * c.dp));
    D = s.hidden;
    hd = D / s.heads;
    qkvCols = D + 2 * uint64_t(s.kvHeads) * hd;
    F = s.ffnHidden;
    Fe = s.expertFfnHidden != 0 ? s.expertFfnHidden : s.ffnHidden;
    mats = s.ffn == LlmFfnKind::SWIGLU ? 3 : 2;
    t = uint64_t(c.microBatch) * s.seqLength;
    tt = c.sequenceParallel ? t / c.tp : t;
    vocabRows = c.vocabParallel ? CeilDiv(s.vocab, c.tp) : s.vocab;
    hasMoe = s.experts > 1;
    edpSize = c.tp * (c.dp / c.ep);

    const uint64_t vocabParams = vocabRows * D;
    const bool tpPartialEmb = !c.vocabParallel && c.sequenceParallel;
    const uint32_t perStage = s.layers / c.pp;
    units.assign(c.pp, {});
    for (uint32_t p = 0; p < c.pp; ++p)
    {
        auto& us = units[p];
        if (p == 0)
        {
            Unit u;
            u.kind = Unit::EMB;
            u.dense = vocabParams;
            u.tpPartial = tpPartialEmb;
            u.tiedCopy = s.tiedEmbeddings && c.pp > 1;
            us.push_back(u);
        }
        for (uint32_t l = p * perStage; l < (p + 1) * perStage; ++l)
        {
            Unit u;
            u.kind = Unit::LAYER;
            u.layer = l;
            u.moe = hasMoe && (l % s.moeEvery) == s.moeEvery - 1;
            u.dense = D * qkvCols / c.tp + D * D / c.tp;
            if (u.moe)
            {
                u.dense += D * s.experts; // router, replicated
                u.expert = uint64_t(s.experts / c.ep) * mats * D * Fe;
            }
            else
            {
                u.dense += mats * D * F / c.tp;
            }
            us.push_back(u);
        }
        if (p == c.pp - 1)
        {
            Unit u;
            u.kind = Unit::HEAD;
            u.dense = (s.tiedEmbeddings && c.pp == 1) ? 0 : vocabParams;
            u.tpPartial = tpPartialEmb && u.dense != 0;
            u.tiedCopy = s.tiedEmbeddings && c.pp > 1;
            us.push_back(u);
        }
    }
    templates.assign(c.pp, nullptr);
    PlanGroups();
}

void
LlmWorkloadGenerator::Impl::PlanGroups()
{
    groupSize[GROUP_TP] = c.tp;
    groupSize[GROUP_DP] = c.dp;
    groupSize[GROUP_EP] = hasMoe ? c.ep : 1;
    groupSize[GROUP_EDP] = hasMoe ? edpSize : 1;
    groupSize[GROUP_EMB] = (c.model.tiedEmbeddings && c.pp > 1) ? 2 : 1;
    // a key identifies the group of a rank: the coordinates that stay fixed
    auto key = [this](GroupKind k, const Coord& x) -> uint64_t {
        const uint64_t P = x.pp;
        switch (k)
        {
        case GROUP_TP:
            return (uint64_t(x.dp) << 40) | P;
        case GROUP_DP:
            return (uint64_t(x.tp) << 40) | P;
        case GROUP_EP:
            return (uint64_t(x.tp) << 40) | (uint64_t(x.dp / c.ep) << 20) | P;
        case GROUP_EDP:
            return (uint64_t(x.dp % c.ep) << 40) | P;
        case GROUP_EMB:
        default:
            return (uint64_t(x.dp) << 40) | (uint64_t(x.tp) << 20);
        }
    };
    uint32_t nextId = 1;
    for (int kind = 0; kind < GROUP_KINDS; ++kind)
    {
        groupOf[kind].assign(world, std::string());
        if (groupSize[kind] < 2)
        {
            continue;
        }
        std::map<uint64_t, std::string> ids;
        for (uint32_t r = 0; r < world; ++r)
        {
            const Coord x = CoordOf(r);
            if (kind == GROUP_EMB && x.pp != 0 && x.pp != c.pp - 1)
            {
                continue;
            }
            const uint64_t k = key(GroupKind(kind), x);
            auto it = ids.find(k);
            if (it == ids.end())
            {
                it = ids.emplace(k, std::to_string(nextId++)).first;
            }
            groupOf[kind][r] = it->second;
            groups[it->second].push_back(r); // ranks ascend: members sorted
        }
    }
}

// ---------------------------------------------------------------- stage builder

namespace
{

/// Builds the template of one stage: the compute stream in schedule order and the
/// communication around it.
class StageBuilder
{
  public:
    using Impl = LlmWorkloadGenerator::Impl;

    StageBuilder(const Impl& p, uint32_t stage, StageTemplate& out)
        : P(p),
          C(p.c),
          m_stage(stage),
          m_out(out)
    {
        m_open[1].expert = true;
    }

    void Build();

  private:
    using Ids = std::vector<uint64_t>;
    static constexpr uint64_t kNone = ~uint64_t(0);

    // ---- node factories
    uint64_t Add(WorkloadNode&& n, Patch patch)
    {
        n.id = m_out.nodes.size();
        m_out.nodes.push_back(std::move(n));
        m_out.patches.push_back(patch);
        return m_out.nodes.back().id;
    }

    /// A COMP node on the stream: control dependency on the previous COMP.
    uint64_t Comp(const std::string& name, const char* op, uint64_t flops, uint64_t bytes, Ids deps)
    {
        WorkloadNode n;
        n.name = m_prefix + name;
        n.kind = NodeKind::COMP;
        n.numOps = flops;
        n.hasNumOps = true;
        n.tensorSize = bytes;
        n.opType = op;
        for (uint64_t d : m_inject)
        {
            deps.push_back(d);
        }
        m_inject.clear();
        Dedup(deps);
        n.dataDeps = std::move(deps);
        if (m_lastComp != kNone &&
            std::find(n.dataDeps.begin(), n.dataDeps.end(), m_lastComp) == n.dataDeps.end())
        {
            n.ctrlDeps.push_back(m_lastComp);
        }
        if (C.computeTflops > 0)
        {
            double ns = double(flops) / (C.computeTflops * 1e3);
            if (C.memoryGBps > 0)
            {
                ns = std::max(ns, double(bytes) / C.memoryGBps);
            }
            n.durationNs = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(ns)));
            n.durationMicros = (n.durationNs + 500) / 1000;
        }
        m_lastComp = Add(std::move(n), Patch());
        if (m_afterComp)
        {
            auto f = std::move(m_afterComp);
            m_afterComp = nullptr;
            f(m_lastComp);
        }
        return m_lastComp;
    }

    uint64_t Gemm(const std::string& name, uint64_t M, uint64_t K, uint64_t N, Ids deps)
    {
        return Comp(name, "GEMM", 2 * M * K * N, (M * K + K * N + M * N) * P.e, std::move(deps));
    }

    uint64_t Elem(const std::string& name,
                  uint64_t elems,
                  uint64_t flopsPerElem,
                  uint64_t accesses,
                  Ids deps,
                  const char* op = "ELEMENTWISE")
    {
        return Comp(name, op, elems * flopsPerElem, elems * accesses * P.e, std::move(deps));
    }

    /// A collective on a group kind; returns `passThrough` when the group is a single rank.
    uint64_t Coll(const std::string& name,
                  CollType type,
                  uint64_t bytes,
                  LlmWorkloadGenerator::GroupKind kind,
                  Ids deps,
                  Ids ctrl = {},
                  uint64_t passThrough = kNone)
    {
        if (P.groupSize[kind] < 2)
        {
            return passThrough;
        }
        WorkloadNode n;
        n.name = m_prefix + name;
        n.kind = NodeKind::COMM_COLL;
        n.collType = type;
        n.commSize = bytes;
        Dedup(deps);
        n.dataDeps = std::move(deps);
        n.ctrlDeps = std::move(ctrl);
        Patch pt;
        pt.kind = PATCH_PG;
        pt.group = kind;
        return Add(std::move(n), pt);
    }

    uint64_t P2P(const std::string& name,
                 bool send,
                 uint8_t patch,
                 int64_t tag,
                 uint64_t bytes,
                 Ids deps,
                 Ids ctrl)
    {
        WorkloadNode n;
        n.name = m_prefix + name;
        n.kind = send ? NodeKind::COMM_SEND : NodeKind::COMM_RECV;
        n.commSize = bytes;
        n.commTag = tag;
        n.dataDeps = std::move(deps);
        n.ctrlDeps = std::move(ctrl);
        Patch pt;
        pt.kind = patch;
        return Add(std::move(n), pt);
    }

    Ids LastCompDep() const
    {
        return m_lastComp == kNone ? Ids{} : Ids{m_lastComp};
    }

    static void Dedup(Ids& v)
    {
        v.erase(std::remove(v.begin(), v.end(), kNone), v.end());
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }

    /// TP all-reduce (no SP) or reduce-scatter (SP) of a partial-sum activation
    uint64_t TpReduce(const std::string& where, const std::string& what, uint64_t src)
    {
        return Coll(where + (C.sequenceParallel ? "rs." : "ar.") + what,
                    C.sequenceParallel ? CollType::REDUCE_SCATTER : CollType::ALL_REDUCE,
                    P.t * P.D * P.e,
                    LlmWorkloadGenerator::GROUP_TP,
                    {src},
                    {},
                    src);
    }

    /// SP all-gather of a sequence shard (activation or gradient); identity without SP
    uint64_t SpGather(const std::string& name, Ids deps, Ids ctrl, uint64_t passThrough)
    {
        if (!C.sequenceParallel)
        {
            return passThrough;
        }
        return Coll(name,
                    CollType::ALL_GATHER,
                    P.tt * P.D * P.e,
                    LlmWorkloadGenerator::GROUP_TP,
                    std::move(deps),
                    std::move(ctrl),
                    passThrough);
    }

    // ---- units
    uint64_t Forward(const Unit& u, uint64_t in);
    uint64_t Backward(const Unit& u, uint64_t gradIn, Ids& wgradDense, Ids& wgradExpert);
    uint64_t LayerForward(const Unit& u, uint64_t x);
    uint64_t LayerBackward(const Unit& u, uint64_t gy, Ids& wd, Ids& we);

    // ---- ZeRO-3 parameter gathers
    Ids GatherParams(const Unit& u, const std::string& pass, Ids ctrl);

    // ---- gradient reduction
    struct Bucket
    {
        uint64_t grad{0};  // gradient bytes
        uint64_t param{0}; // parameter bytes
        Ids deps;
        std::vector<std::tuple<LlmWorkloadGenerator::GroupKind, uint64_t, std::string>> extras;
        bool expert{false};
        uint32_t index{0};
    };

    void ReduceUnit(const Unit& u, const Ids& wd, const Ids& we, const std::string& round);
    void CloseBucket(Bucket& b, const std::string& round);
    void EmitBucket(const Bucket& b, const std::string& round, const Ids& deps);
    void EndRound(const std::string& round);

    const Impl& P;
    const LlmWorkloadConfig& C;
    uint32_t m_stage;
    StageTemplate& m_out;
    std::string m_prefix;
    uint64_t m_lastComp{kNone};
    Ids m_inject;                              // data deps of the next COMP
    std::function<void(uint64_t)> m_afterComp; // runs after the next COMP is added
    Ids m_pendingGather;                       // ZeRO-3 prefetch for the next unit

    Bucket m_open[2];                // dense, expert
    uint32_t m_bucketCount[2]{0, 0}; // per round
    std::vector<Bucket> m_deferred;  // closed, waiting for the end of the round (no overlap)
    std::vector<Bucket> m_finalBuckets;
    bool m_finalRound{false};
    Ids m_gradColls;
};

uint64_t
StageBuilder::LayerForward(const Unit& u, uint64_t x)
{
    const uint64_t tp = C.tp;
    const uint64_t D = P.D;
    const std::string L = "L" + std::to_string(u.layer) + ".";
    const uint64_t ln1 = Elem(L + "f.ln1", P.tt * D, 5, 2, {x});
    const uint64_t a = SpGather(L + "f.ag.qkv", {ln1}, {}, ln1);
    const uint64_t qkv = Gemm(L + "f.qkv", P.t, D, P.qkvCols / tp, {a});
    const uint64_t attn = Comp(L + "f.attention",
                               "ATTENTION",
                               4 * P.t * C.model.seqLength * D / tp,
                               P.t * (2 * D + (P.qkvCols - D)) / tp * P.e,
                               {qkv});
    const uint64_t proj = Gemm(L + "f.proj", P.t, D / tp, D, {attn});
    const uint64_t r1 = TpReduce(L + "f.", "proj", proj);
    const uint64_t ln2 = Elem(L + "f.residual_ln2", P.tt * D, 6, 3, {r1, x});
    if (u.moe)
    {
        const uint64_t E = C.model.experts;
        const uint64_t tok =
            static_cast<uint64_t>(std::ceil(double(P.tt) * C.model.topK * C.capacityFactor));
        const uint64_t a2a = tok * D * P.e;
        const uint64_t router = Gemm(L + "f.router", P.tt, D, E, {ln2});
        const uint64_t disp = Coll(L + "f.a2a.dispatch",
                                   CollType::ALL_TO_ALL,
                                   a2a,
                                   LlmWorkloadGenerator::GROUP_EP,
                                   {router},
                                   {},
                                   router);
        const uint64_t fc1 = Gemm(L + "f.expert_fc1", tok, D, (P.mats - 1) * P.Fe, {disp});
        const uint64_t act = Elem(L + "f.expert_act", tok * P.Fe, 5, 1 + (P.mats - 1), {fc1});
        const uint64_t fc2 = Gemm(L + "f.expert_fc2", tok, P.Fe, D, {act});
        const uint64_t comb = Coll(L + "f.a2a.combine",
                                   CollType::ALL_TO_ALL,
                                   a2a,
                                   LlmWorkloadGenerator::GROUP_EP,
                                   {fc2},
                                   {},
                                   fc2);
        return Elem(L + "f.moe_combine_residual", P.tt * D, 2 * C.model.topK, 3, {comb, ln2});
    }
    const uint64_t b = SpGather(L + "f.ag.fc1", {ln2}, {}, ln2);
    const uint64_t fc1 = Gemm(L + "f.fc1", P.t, D, (P.mats - 1) * P.F / tp, {b});
    const uint64_t act = Elem(L + "f.act", P.t * P.F / tp, 5, P.mats, {fc1});
    const uint64_t fc2 = Gemm(L + "f.fc2", P.t, P.F / tp, D, {act});
    const uint64_t r2 = TpReduce(L + "f.", "fc2", fc2);
    return Elem(L + "f.residual", P.tt * D, 1, 3, {r2, ln2});
}

uint64_t
StageBuilder::LayerBackward(const Unit& u, uint64_t gy, Ids& wd, Ids& we)
{
    const uint64_t tp = C.tp;
    const uint64_t D = P.D;
    const std::string L = "L" + std::to_string(u.layer) + ".";
    uint64_t gx2; // gradient at the FFN / MoE input (after its norm), sequence-shard layout
    if (u.moe)
    {
        const uint64_t E = C.model.experts;
        const uint64_t tok =
            static_cast<uint64_t>(std::ceil(double(P.tt) * C.model.topK * C.capacityFactor));
        const uint64_t a2a = tok * D * P.e;
        const uint64_t gc = Coll(L + "b.a2a.combine",
                                 CollType::ALL_TO_ALL,
                                 a2a,
                                 LlmWorkloadGenerator::GROUP_EP,
                                 {gy},
                                 {},
                                 gy);
        const uint64_t fc2d = Gemm(L + "b.expert_fc2_dgrad", tok, D, P.Fe, {gc});
        const uint64_t fc2w = Gemm(L + "b.expert_fc2_wgrad", P.Fe, tok, D, {gc});
        const uint64_t actb = Elem(L + "b.expert_act", tok * P.Fe, 5, 1 + P.mats, {fc2d});
        const uint64_t fc1d = Gemm(L + "b.expert_fc1_dgrad", tok, (P.mats - 1) * P.Fe, D, {actb});
        const uint64_t gd = Coll(L + "b.a2a.dispatch",
                                 CollType::ALL_TO_ALL,
                                 a2a,
                                 LlmWorkloadGenerator::GROUP_EP,
                                 {fc1d},
                                 {},
                                 fc1d);
        const uint64_t fc1w = Gemm(L + "b.expert_fc1_wgrad", D, tok, (P.mats - 1) * P.Fe, {actb});
        const uint64_t rd = Gemm(L + "b.router_dgrad", P.tt, E, D, {gd});
        const uint64_t rw = Gemm(L + "b.router_wgrad", D, P.tt, E, {gd});
        we.push_back(fc2w);
        we.push_back(fc1w);
        wd.push_back(rw);
        gx2 = Elem(L + "b.ln2", P.tt * D, 6, 3, {rd, gy});
    }
    else
    {
        const uint64_t g2 = SpGather(L + "b.ag.fc2_grad", {gy}, {}, gy);
        const uint64_t fc2d = Gemm(L + "b.fc2_dgrad", P.t, D, P.F / tp, {g2});
        const uint64_t fc2w = Gemm(L + "b.fc2_wgrad", P.F / tp, P.t, D, {g2});
        const uint64_t actb = Elem(L + "b.act", P.t * P.F / tp, 5, 1 + P.mats, {fc2d});
        // column-parallel fc1: the stored input shard is gathered again, overlapping dgrad
        const uint64_t xg = SpGather(L + "b.ag.fc1_in", {}, LastCompDep(), kNone);
        const uint64_t fc1d = Gemm(L + "b.fc1_dgrad", P.t, (P.mats - 1) * P.F / tp, D, {actb});
        const uint64_t r = TpReduce(L + "b.", "fc1_dgrad", fc1d);
        const uint64_t fc1w = Gemm(L + "b.fc1_wgrad", D, P.t, (P.mats - 1) * P.F / tp, {actb, xg});
        wd.push_back(fc2w);
        wd.push_back(fc1w);
        gx2 = Elem(L + "b.ln2", P.tt * D, 6, 3, {r, gy});
    }
    const uint64_t g1 = SpGather(L + "b.ag.proj_grad", {gx2}, {}, gx2);
    const uint64_t projd = Gemm(L + "b.proj_dgrad", P.t, D, D / tp, {g1});
    const uint64_t projw = Gemm(L + "b.proj_wgrad", D / tp, P.t, D, {g1});
    const uint64_t attnb = Comp(L + "b.attention",
                                "ATTENTION",
                                8 * P.t * C.model.seqLength * D / tp,
                                2 * P.t * (2 * D + (P.qkvCols - D)) / tp * P.e,
                                {projd});
    const uint64_t xg = SpGather(L + "b.ag.qkv_in", {}, LastCompDep(), kNone);
    const uint64_t qkvd = Gemm(L + "b.qkv_dgrad", P.t, P.qkvCols / tp, D, {attnb});
    const uint64_t r = TpReduce(L + "b.", "qkv_dgrad", qkvd);
    const uint64_t qkvw = Gemm(L + "b.qkv_wgrad", D, P.t, P.qkvCols / tp, {attnb, xg});
    wd.push_back(projw);
    wd.push_back(qkvw);
    return Elem(L + "b.ln1", P.tt * D, 6, 3, {r, gx2});
}

uint64_t
StageBuilder::Forward(const Unit& u, uint64_t in)
{
    const uint64_t D = P.D;
    if (u.kind == Unit::LAYER)
    {
        return LayerForward(u, in);
    }
    if (u.kind == Unit::EMB)
    {
        if (C.vocabParallel)
        {
            // each rank looks up the tokens in its vocabulary shard; partial sums over TP
            const uint64_t look =
                Elem("emb.f.lookup", P.t * D, 1, 2, in == kNone ? Ids{} : Ids{in}, "EMBEDDING");
            return TpReduce("emb.f.", "lookup", look);
        }
        return Elem("emb.f.lookup", P.tt * D, 1, 2, in == kNone ? Ids{} : Ids{in}, "EMBEDDING");
    }
    // output layer: final norm, logits, cross-entropy
    const uint64_t lnf = Elem("head.f.ln_f", P.tt * D, 5, 2, {in});
    if (C.vocabParallel)
    {
        const uint64_t a = SpGather("head.f.ag", {lnf}, {}, lnf);
        const uint64_t Vr = P.vocabRows;
        const uint64_t logits = Gemm("head.f.logits", P.t, D, Vr, {a});
        const uint64_t mx = Elem("head.f.ce_max", P.t * Vr, 1, 1, {logits});
        const uint64_t ar1 = Coll("head.f.ar.ce_max",
                                  CollType::ALL_REDUCE,
                                  P.t * 4,
                                  LlmWorkloadGenerator::GROUP_TP,
                                  {mx},
                                  {},
                                  mx);
        const uint64_t ex = Elem("head.f.ce_exp", P.t * Vr, 4, 1, {ar1});
        const uint64_t ar2 = Coll("head.f.ar.ce_sum",
                                  CollType::ALL_REDUCE,
                                  P.t * 4,
                                  LlmWorkloadGenerator::GROUP_TP,
                                  {ex},
                                  {},
                                  ex);
        const uint64_t ar3 = Coll("head.f.ar.ce_target",
                                  CollType::ALL_REDUCE,
                                  P.t * 4,
                                  LlmWorkloadGenerator::GROUP_TP,
                                  {ex},
                                  {},
                                  ex);
        return Elem("head.f.loss", P.t, 4, 2, {ar2, ar3});
    }
    const uint64_t logits = Gemm("head.f.logits", P.tt, D, C.model.vocab, {lnf});
    const uint64_t ce = Elem("head.f.cross_entropy", P.tt * C.model.vocab, 5, 1, {logits});
    return Elem("head.f.loss", P.tt, 4, 2, {ce});
}

uint64_t
StageBuilder::Backward(const Unit& u, uint64_t gradIn, Ids& wd, Ids& we)
{
    const uint64_t D = P.D;
    if (u.kind == Unit::LAYER)
    {
        return LayerBackward(u, gradIn, wd, we);
    }
    if (u.kind == Unit::EMB)
    {
        if (C.vocabParallel)
        {
            const uint64_t gg = SpGather("emb.b.ag", {gradIn}, {}, gradIn);
            wd.push_back(Elem("emb.b.wgrad", P.t * D, 1, 3, {gg}, "EMBEDDING"));
        }
        else
        {
            wd.push_back(Elem("emb.b.wgrad", P.tt * D, 1, 3, {gradIn}, "EMBEDDING"));
        }
        return wd.back();
    }
    if (C.vocabParallel)
    {
        const uint64_t Vr = P.vocabRows;
        const uint64_t ceb = Elem("head.b.ce", P.t * Vr, 2, 2, {gradIn});
        const uint64_t xg = SpGather("head.b.ag.in", {}, LastCompDep(), kNone);
        const uint64_t ld = Gemm("head.b.logits_dgrad", P.t, Vr, D, {ceb});
        const uint64_t r = TpReduce("head.b.", "logits_dgrad", ld);
        wd.push_back(Gemm("head.b.logits_wgrad", Vr, P.t, D, {ceb, xg}));
        return Elem("head.b.ln_f", P.tt * D, 5, 3, {r});
    }
    const uint64_t V = C.model.vocab;
    const uint64_t ceb = Elem("head.b.ce", P.tt * V, 2, 2, {gradIn});
    const uint64_t ld = Gemm("head.b.logits_dgrad", P.tt, V, D, {ceb});
    wd.push_back(Gemm("head.b.logits_wgrad", V, P.tt, D, {ceb}));
    return Elem("head.b.ln_f", P.tt * D, 5, 3, {ld});
}

StageBuilder::Ids
StageBuilder::GatherParams(const Unit& u, const std::string& pass, Ids ctrl)
{
    Ids out;
    const std::string name = (u.kind == Unit::EMB    ? std::string("emb")
                              : u.kind == Unit::HEAD ? std::string("head")
                                                     : "L" + std::to_string(u.layer)) +
                             "." + pass + ".zero3_allgather";
    if (u.dense > 0)
    {
        const uint64_t id = Coll(name + ".params",
                                 CollType::ALL_GATHER,
                                 CeilDiv(u.dense * P.e, C.dp),
                                 LlmWorkloadGenerator::GROUP_DP,
                                 {},
                                 ctrl);
        if (id != kNone)
        {
            out.push_back(id);
        }
    }
    if (u.expert > 0)
    {
        const uint64_t id = Coll(name + ".expert_params",
                                 CollType::ALL_GATHER,
                                 CeilDiv(u.expert * P.e, P.edpSize),
                                 LlmWorkloadGenerator::GROUP_EDP,
                                 {},
                                 ctrl);
        if (id != kNone)
        {
            out.push_back(id);
        }
    }
    return out;
}

void
StageBuilder::EmitBucket(const Bucket& b, const std::string& round, const Ids& deps)
{
    const auto group = b.expert ? LlmWorkloadGenerator::GROUP_EDP : LlmWorkloadGenerator::GROUP_DP;
    const std::string base =
        round + (b.expert ? "expert_" : "") + "bucket" + std::to_string(b.index) + ".";
    Ids d = deps;
    auto extras = [&]() {
        for (const auto& [kind, bytes, unitName] : b.extras)
        {
            // the tied-embedding all-reduce pairs two stages whose bucket numbers differ:
            // it is named by its unit so that both ends issue the same collective
            const std::string name = kind == LlmWorkloadGenerator::GROUP_TP
                                         ? base + unitName + ".tp_allreduce"
                                         : round + "tied_embedding_allreduce";
            const uint64_t id = Coll(name, CollType::ALL_REDUCE, bytes, kind, d);
            if (id != kNone)
            {
                m_gradColls.push_back(id);
                d = {id};
            }
        }
    };
    if (C.zeroStage >= 1)
    {
        extras();
    }
    const uint64_t id = Coll(base + (C.zeroStage >= 1 ? "reduce_scatter" : "allreduce"),
                             C.zeroStage >= 1 ? CollType::REDUCE_SCATTER : CollType::ALL_REDUCE,
                             b.grad,
                             group,
                             d);
    if (id != kNone)
    {
        m_gradColls.push_back(id);
        d = {id};
    }
    if (C.zeroStage == 0)
    {
        extras();
    }
}

void
StageBuilder::CloseBucket(Bucket& b, const std::string& round)
{
    if (b.grad == 0 && b.extras.empty())
    {
        return;
    }
    const int k = b.expert ? 1 : 0;
    b.index = m_bucketCount[k]++;
    if (C.overlapGradReduce)
    {
        EmitBucket(b, round, b.deps);
    }
    else
    {
        m_deferred.push_back(b);
    }
    if (m_finalRound)
    {
        m_finalBuckets.push_back(b);
    }
    const bool expert = b.expert;
    b = Bucket();
    b.expert = expert;
}

void
StageBuilder::ReduceUnit(const Unit& u, const Ids& wd, const Ids& we, const std::string& round)
{
    const uint64_t limit = static_cast<uint64_t>(C.bucketMiB * 1048576.0);
    auto add = [&](Bucket& b, uint64_t params, const Ids& deps, bool extras) {
        if (params == 0)
        {
            return;
        }
        b.grad += params * P.g;
        b.param += params * P.e;
        b.deps.insert(b.deps.end(), deps.begin(), deps.end());
        const std::string unitName = u.kind == Unit::EMB ? "emb" : "head";
        if (extras && u.tpPartial)
        {
            b.extras.emplace_back(LlmWorkloadGenerator::GROUP_TP, params * P.g, unitName);
        }
        if (extras && u.tiedCopy)
        {
            b.extras.emplace_back(LlmWorkloadGenerator::GROUP_EMB, params * P.g, unitName);
        }
        if (b.grad >= limit)
        {
            CloseBucket(b, round);
        }
    };
    add(m_open[0], u.dense, wd, true);
    add(m_open[1], u.expert, we, false);
}

void
StageBuilder::EndRound(const std::string& round)
{
    CloseBucket(m_open[0], round);
    CloseBucket(m_open[1], round);
    if (!C.overlapGradReduce)
    {
        for (const auto& b : m_deferred)
        {
            EmitBucket(b, round, LastCompDep());
        }
        m_deferred.clear();
    }
    m_bucketCount[0] = m_bucketCount[1] = 0;
}

void
StageBuilder::Build()
{
    const uint32_t s = m_stage;
    const uint32_t pp = C.pp;
    const uint32_t m = P.m;
    const auto& us = P.units[s];
    const uint64_t act = P.tt * P.D * P.e;
    const bool zero3 = C.zeroStage == 3;

    // schedule: (forward?, micro-batch)
    std::vector<std::pair<bool, uint32_t>> order;
    if (C.schedule == LlmPipelineSchedule::GPIPE)
    {
        for (uint32_t i = 0; i < m; ++i)
        {
            order.emplace_back(true, i);
        }
        for (uint32_t i = m; i-- > 0;)
        {
            order.emplace_back(false, i);
        }
    }
    else
    {
        const uint32_t warm = std::min(pp - s - 1, m);
        for (uint32_t i = 0; i < warm; ++i)
        {
            order.emplace_back(true, i);
        }
        for (uint32_t j = 0; j + warm < m; ++j)
        {
            order.emplace_back(true, warm + j);
            order.emplace_back(false, j);
        }
        for (uint32_t i = m - warm; i < m; ++i)
        {
            order.emplace_back(false, i);
        }
    }
    size_t lastBackward = 0;
    for (size_t k = 0; k < order.size(); ++k)
    {
        if (!order[k].first)
        {
            lastBackward = k;
        }
    }

    std::vector<uint64_t> loss(m, kNone); // last stage: loss node of each micro-batch
    for (size_t k = 0; k < order.size(); ++k)
    {
        const auto [fwd, i] = order[k];
        m_prefix = "mb" + std::to_string(i) + ".";
        const int64_t tagF = 2 * int64_t(i) + 1;
        const int64_t tagB = 2 * int64_t(i) + 2;
        if (fwd)
        {
            uint64_t x = kNone;
            if (s > 0)
            {
                x = P2P("recv_activation", false, PATCH_RECV_PREV, tagF, act, {}, LastCompDep());
            }
            for (size_t j = 0; j < us.size(); ++j)
            {
                const Unit& u = us[j];
                if (zero3)
                {
                    if (j == 0)
                    {
                        m_inject = GatherParams(u, "f", LastCompDep());
                    }
                    if (j + 1 < us.size())
                    {
                        const Unit& nx = us[j + 1];
                        // prefetch the next unit's shard when this unit starts computing
                        m_afterComp = [this, &nx](uint64_t first) {
                            m_pendingGather = GatherParams(nx, "f", {first});
                        };
                    }
                }
                x = Forward(u, x);
                if (zero3)
                {
                    m_inject = m_pendingGather;
                    m_pendingGather.clear();
                }
            }
            m_inject.clear();
            m_afterComp = nullptr;
            if (s + 1 < pp)
            {
                P2P("send_activation", true, PATCH_SEND_NEXT, tagF, act, {x}, {});
            }
            else
            {
                loss[i] = x;
            }
            continue;
        }
        // backward
        m_finalRound = (k == lastBackward);
        const bool reduceLayers = C.gradSync == LlmGradSync::MICROBATCH || m_finalRound;
        const std::string round =
            "grad." + (C.gradSync == LlmGradSync::MICROBATCH ? m_prefix : std::string());
        uint64_t gy;
        if (s + 1 < pp)
        {
            gy = P2P("recv_gradient", false, PATCH_RECV_NEXT, tagB, act, {}, LastCompDep());
        }
        else
        {
            gy = loss[i];
        }
        for (size_t jj = us.size(); jj-- > 0;)
        {
            const Unit& u = us[jj];
            if (zero3)
            {
                if (jj + 1 == us.size())
                {
                    m_inject = GatherParams(u, "b", LastCompDep());
                }
                if (jj > 0)
                {
                    const Unit& nx = us[jj - 1];
                    m_afterComp = [this, &nx](uint64_t first) {
                        m_pendingGather = GatherParams(nx, "b", {first});
                    };
                }
            }
            if (C.recompute == LlmRecompute::FULL && u.kind == Unit::LAYER)
            {
                const std::string saved = m_prefix;
                m_prefix += "recompute.";
                LayerForward(u, kNone);
                m_prefix = saved;
            }
            Ids wd;
            Ids we;
            gy = Backward(u, gy, wd, we);
            if (zero3)
            {
                m_inject = m_pendingGather;
                m_pendingGather.clear();
            }
            const bool reduce = (u.kind == Unit::LAYER) ? reduceLayers : m_finalRound;
            if (reduce)
            {
                const std::string saved = m_prefix;
                m_prefix = "";
                ReduceUnit(u, wd, we, round);
                m_prefix = saved;
            }
        }
        m_inject.clear();
        m_afterComp = nullptr;
        if (s > 0)
        {
            P2P("send_gradient", true, PATCH_SEND_PREV, tagB, act, {gy}, {});
        }
        if (reduceLayers || m_finalRound)
        {
            const std::string saved = m_prefix;
            m_prefix = "";
            EndRound(round);
            m_prefix = saved;
        }
    }

    // optimizer step
    m_prefix = "";
    if (!C.optimizerStep)
    {
        return;
    }
    uint64_t dense = 0;
    uint64_t expert = 0;
    for (const auto& u : us)
    {
        dense += u.dense;
        expert += u.expert;
    }
    const uint64_t pOpt = (C.zeroStage >= 1 ? CeilDiv(dense, C.dp) : dense) +
                          (C.zeroStage >= 1 ? CeilDiv(expert, P.edpSize) : expert);
    Ids deps = m_gradColls;
    const uint64_t state = pOpt * C.optimizerBytesPerParam;
    if (C.offloadOptimizer)
    {
        WorkloadNode n;
        n.name = "optimizer.load_state";
        n.kind = NodeKind::MEM_LOAD;
        n.tensorSize = state;
        Dedup(deps);
        n.dataDeps = deps;
        n.ctrlDeps = LastCompDep();
        deps = {Add(std::move(n), Patch())};
    }
    // Adam: ~10 FLOPs per parameter; reads and writes the state, reads the gradient,
    // writes the parameter
    const uint64_t step = Comp("optimizer.step",
                               "OPTIMIZER",
                               10 * pOpt,
                               pOpt * (2 * C.optimizerBytesPerParam + P.g + P.e),
                               deps);
    if (C.offloadOptimizer)
    {
        WorkloadNode n;
        n.name = "optimizer.store_state";
        n.kind = NodeKind::MEM_STORE;
        n.tensorSize = state;
        n.dataDeps = {step};
        Add(std::move(n), Patch());
    }
    if (C.zeroStage == 1 || C.zeroStage == 2)
    {
        for (const auto& b : m_finalBuckets)
        {
            const auto group =
                b.expert ? LlmWorkloadGenerator::GROUP_EDP : LlmWorkloadGenerator::GROUP_DP;
            Coll(std::string("optimizer.") + (b.expert ? "expert_" : "") + "bucket" +
                     std::to_string(b.index) + ".param_allgather",
                 CollType::ALL_GATHER,
                 CeilDiv(b.param, P.groupSize[group]),
                 group,
                 {step});
        }
    }
}

} // namespace

// ---------------------------------------------------------------- generator

std::shared_ptr<const StageTemplate>
LlmWorkloadGenerator::Impl::GetTemplate(uint32_t stage) const
{
    std::lock_guard<std::mutex> lock(mutex);
    if (!templates[stage])
    {
        auto tpl = std::make_shared<StageTemplate>();
        StageBuilder b(*this, stage, *tpl);
        b.Build();
        templates[stage] = tpl;
    }
    return templates[stage];
}

void
LlmWorkloadGenerator::Impl::Specialize(const StageTemplate& tpl,
                                       uint32_t rank,
                                       std::vector<WorkloadNode>& nodes) const
{
    const Coord x = CoordOf(rank);
    Coord prev = x;
    Coord next = x;
    prev.pp = x.pp > 0 ? x.pp - 1 : 0;
    next.pp = x.pp + 1 < c.pp ? x.pp + 1 : x.pp;
    const int32_t me = static_cast<int32_t>(rank);
    const int32_t pr = static_cast<int32_t>(RankOf(prev));
    const int32_t nx = static_cast<int32_t>(RankOf(next));
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        const Patch& p = tpl.patches[i];
        WorkloadNode& n = nodes[i];
        switch (p.kind)
        {
        case PATCH_PG:
            n.pgName = groupOf[p.group][rank];
            break;
        case PATCH_SEND_NEXT:
            n.commSrc = me;
            n.commDst = nx;
            break;
        case PATCH_SEND_PREV:
            n.commSrc = me;
            n.commDst = pr;
            break;
        case PATCH_RECV_PREV:
            n.commSrc = pr;
            n.commDst = me;
            break;
        case PATCH_RECV_NEXT:
            n.commSrc = nx;
            n.commDst = me;
            break;
        default:
            break;
        }
    }
}

LlmWorkloadGenerator::LlmWorkloadGenerator(const LlmWorkloadConfig& config)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->c = config;
    m_impl->Validate();
    m_impl->Plan();
}

LlmWorkloadGenerator::~LlmWorkloadGenerator() = default;

const LlmWorkloadConfig&
LlmWorkloadGenerator::GetConfig() const
{
    return m_impl->c;
}

uint32_t
LlmWorkloadGenerator::GetNpuCount() const
{
    return m_impl->world;
}

uint32_t
LlmWorkloadGenerator::GetMicroBatches() const
{
    return m_impl->m;
}

LlmWorkloadGenerator::Coord
LlmWorkloadGenerator::GetCoord(uint32_t rank) const
{
    return m_impl->CoordOf(rank);
}

uint32_t
LlmWorkloadGenerator::GetRank(const Coord& c) const
{
    return m_impl->RankOf(c);
}

uint64_t
LlmWorkloadGenerator::GetModelParams() const
{
    const Impl& P = *m_impl;
    const LlmModelShape& s = P.c.model;
    uint64_t n = 0;
    for (uint32_t l = 0; l < s.layers; ++l)
    {
        n += P.D * P.qkvCols + P.D * P.D;
        if (P.hasMoe && (l % s.moeEvery) == s.moeEvery - 1)
        {
            n += P.D * s.experts + uint64_t(s.experts) * P.mats * P.D * P.Fe;
        }
        else
        {
            n += P.mats * P.D * P.F;
        }
    }
    n += uint64_t(s.vocab) * P.D * (s.tiedEmbeddings ? 1 : 2);
    return n;
}

uint64_t
LlmWorkloadGenerator::GetStageParams(uint32_t stage) const
{
    uint64_t n = 0;
    for (const auto& u : m_impl->units.at(stage))
    {
        n += u.dense + u.expert;
    }
    return n;
}

uint64_t
LlmWorkloadGenerator::GetStageExpertParams(uint32_t stage) const
{
    uint64_t n = 0;
    for (const auto& u : m_impl->units.at(stage))
    {
        n += u.expert;
    }
    return n;
}

LlmMemoryEstimate
LlmWorkloadGenerator::GetMemoryEstimate(uint32_t stage) const
{
    const Impl& P = *m_impl;
    const LlmWorkloadConfig& c = P.c;
    const uint64_t expert = GetStageExpertParams(stage);
    const uint64_t dense = GetStageParams(stage) - expert;
    auto shard = [&](uint32_t minStage) {
        return c.zeroStage >= minStage ? CeilDiv(dense, c.dp) + CeilDiv(expert, P.edpSize)
                                       : dense + expert;
    };
    LlmMemoryEstimate m;
    m.params = shard(3) * P.e;
    m.grads = shard(2) * P.g;
    m.optimizer = c.offloadOptimizer ? 0 : shard(1) * c.optimizerBytesPerParam;
    // Korthikanti et al. 2022, Table 2 (16-bit activations, fused attention: no s x s terms)
    const double sbh = double(P.t) * P.D * double(P.e) / 2.0;
    double perLayer;
    if (c.recompute == LlmRecompute::FULL)
    {
        perLayer = 2 * sbh / (c.sequenceParallel ? c.tp : 1);
    }
    else if (c.sequenceParallel)
    {
        perLayer = 34 * sbh / c.tp;
    }
    else
    {
        perLayer = sbh * (10 + 24.0 / c.tp);
    }
    const uint32_t inflight =
        c.schedule == LlmPipelineSchedule::GPIPE ? P.m : std::min<uint32_t>(c.pp - stage, P.m);
    m.activations = static_cast<uint64_t>(perLayer * (c.model.layers / c.pp) * inflight);
    return m;
}

const std::map<std::string, std::vector<uint32_t>>&
LlmWorkloadGenerator::GetCommGroups() const
{
    return m_impl->groups;
}

const std::string&
LlmWorkloadGenerator::GetGroupName(uint32_t rank, GroupKind kind) const
{
    if (kind >= GROUP_KINDS || rank >= m_impl->world)
    {
        return m_impl->none;
    }
    return m_impl->groupOf[kind][rank];
}

WorkloadGraph
LlmWorkloadGenerator::BuildRank(uint32_t rank) const
{
    if (rank >= m_impl->world)
    {
        throw InputError("rank " + std::to_string(rank) + " out of range (world size " +
                         std::to_string(m_impl->world) + ")");
    }
    auto tpl = m_impl->GetTemplate(GetCoord(rank).pp);
    WorkloadGraph g;
    g.file = "llm-workload." + std::to_string(rank);
    g.rank = rank;
    g.version = "0.0.4";
    g.nodes = tpl->nodes;
    m_impl->Specialize(*tpl, rank, g.nodes);
    g.BuildIndex();
    return g;
}

std::vector<std::shared_ptr<const WorkloadGraph>>
LlmWorkloadGenerator::BuildAll() const
{
    std::vector<std::shared_ptr<const WorkloadGraph>> v;
    v.reserve(m_impl->world);
    for (uint32_t r = 0; r < m_impl->world; ++r)
    {
        v.push_back(std::make_shared<WorkloadGraph>(BuildRank(r)));
    }
    return v;
}

std::string
LlmWorkloadGenerator::GetCommGroupsJson() const
{
    // ids in numeric order
    std::vector<std::pair<uint64_t, const std::vector<uint32_t>*>> v;
    for (const auto& [name, members] : m_impl->groups)
    {
        v.emplace_back(std::stoull(name), &members);
    }
    std::sort(v.begin(), v.end());
    std::string s = "{";
    for (size_t i = 0; i < v.size(); ++i)
    {
        s += (i ? ",\n \"" : "\n \"") + std::to_string(v[i].first) + "\": [";
        const auto& mem = *v[i].second;
        for (size_t k = 0; k < mem.size(); ++k)
        {
            s += (k ? ", " : "") + std::to_string(mem[k]);
        }
        s += "]";
    }
    s += v.empty() ? "}\n" : "\n}\n";
    return s;
}

double
LlmWorkloadGenerator::GetIterationFlops() const
{
    double total = 0;
    const double perStage = double(m_impl->c.dp) * m_impl->c.tp;
    for (uint32_t s = 0; s < m_impl->c.pp; ++s)
    {
        auto tpl = m_impl->GetTemplate(s);
        double f = 0;
        for (const auto& n : tpl->nodes)
        {
            f += n.kind == NodeKind::COMP ? double(n.numOps) : 0.0;
        }
        total += f * perStage;
    }
    return total;
}

LlmWriteResult
LlmWorkloadGenerator::Write(const std::string& prefix,
                            const std::string& groupsPath,
                            const ChakraWriteOptions& opts,
                            uint32_t threads) const
{
    const auto t0 = std::chrono::steady_clock::now();
    const Impl& P = *m_impl;
    LlmWriteResult res;
    if (opts.gzip)
    {
        GzipBytes(std::string(), opts.gzipLevel); // validates the level before any work
    }
    res.groupsPath = groupsPath.empty() ? prefix + ".json" : groupsPath;
    {
        const std::string json = GetCommGroupsJson();
        ChakraWriteOptions plain;
        WriteChakraBytes(json, res.groupsPath, plain);
    }
    for (uint32_t s = 0; s < P.c.pp; ++s)
    {
        P.GetTemplate(s);
    }
    const std::string suffix = opts.gzip ? ".et.gz" : ".et";
    res.firstFile = prefix + ".0" + suffix;
    const std::string header = opts.legacy ? std::string() : SerializeChakraHeader(opts.version);
    // work list ordered by stage so that a worker reuses its specialized copy
    std::vector<uint32_t> work(P.world);
    for (uint32_t r = 0; r < P.world; ++r)
    {
        work[r] = r;
    }
    std::stable_sort(work.begin(), work.end(), [&](uint32_t a, uint32_t b) {
        return P.CoordOf(a).pp < P.CoordOf(b).pp;
    });
    if (threads == 0)
    {
        threads = std::max(1u, std::thread::hardware_concurrency());
    }
    threads = std::min<uint32_t>(threads, P.world);
    std::atomic<uint32_t> next{0};
    std::atomic<uint64_t> nodes{0};
    std::atomic<uint64_t> raw{0};
    std::atomic<uint64_t> disk{0};
    std::mutex errMutex;
    std::string error;
    auto worker = [&]() {
        std::vector<WorkloadNode> copy;
        uint32_t copyStage = ~0u;
        std::string out;
        while (true)
        {
            const uint32_t k = next.fetch_add(1);
            if (k >= work.size())
            {
                return;
            }
            {
                std::lock_guard<std::mutex> lock(errMutex);
                if (!error.empty())
                {
                    return;
                }
            }
            const uint32_t rank = work[k];
            const uint32_t stage = P.CoordOf(rank).pp;
            auto tpl = P.templates[stage];
            if (stage != copyStage)
            {
                copy = tpl->nodes;
                copyStage = stage;
            }
            P.Specialize(*tpl, rank, copy);
            out.clear();
            out += header;
            for (const auto& n : copy)
            {
                AppendChakraNode(out, n, opts.legacy);
            }
            try
            {
                const uint64_t w =
                    WriteChakraBytes(out, prefix + "." + std::to_string(rank) + suffix, opts);
                disk += w;
            }
            catch (const std::exception& e)
            {
                std::lock_guard<std::mutex> lock(errMutex);
                if (error.empty())
                {
                    error = e.what();
                }
                return;
            }
            nodes += copy.size();
            raw += out.size();
        }
    };
    std::vector<std::thread> pool;
    for (uint32_t i = 1; i < threads; ++i)
    {
        pool.emplace_back(worker);
    }
    worker();
    for (auto& th : pool)
    {
        th.join();
    }
    if (!error.empty())
    {
        throw WorkloadError(error);
    }
    res.files = P.world;
    res.nodes = nodes;
    res.rawBytes = raw;
    res.fileBytes = disk;
    res.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

namespace
{

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

std::string
Num(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

} // namespace

std::string
LlmWorkloadGenerator::Describe() const
{
    const Impl& P = *m_impl;
    const LlmWorkloadConfig& c = P.c;
    const LlmModelShape& s = c.model;
    std::ostringstream os;
    os << "model " << s.name << ": " << s.layers << " layers, hidden " << s.hidden << ", FFN "
       << s.ffnHidden << " (" << (s.ffn == LlmFfnKind::SWIGLU ? "SwiGLU" : "GeLU") << "), heads "
       << s.heads << ", KV heads " << s.kvHeads << ", vocab " << s.vocab << ", seq " << s.seqLength;
    if (P.hasMoe)
    {
        os << ", " << s.experts << " experts top-" << s.topK << " (expert FFN " << P.Fe
           << ", every " << s.moeEvery << " layer(s))";
    }
    os << (s.tiedEmbeddings ? ", tied embeddings" : "") << "\n";
    os << "parameters: " << GetModelParams() << " (" << std::setprecision(4)
       << double(GetModelParams()) / 1e9 << " B)\n";
    os << "NPUs " << P.world << " = dp " << c.dp << " x tp " << c.tp << " x pp " << c.pp
       << " (rank order " << c.rankOrder << ", innermost first)";
    if (P.hasMoe)
    {
        os << ", ep " << c.ep;
    }
    os << (c.sequenceParallel ? ", sequence parallel" : "")
       << (c.vocabParallel ? ", vocab-parallel embedding" : ", replicated embedding") << "\n";
    os << "batch: global " << c.globalBatch << " sequences, micro-batch " << c.microBatch
       << " per replica, " << P.m << " micro-batches, schedule "
       << (c.schedule == LlmPipelineSchedule::GPIPE ? "gpipe" : "1f1b") << "\n";
    os << "gradients: ZeRO-" << c.zeroStage << ", sync per "
       << (c.gradSync == LlmGradSync::MICROBATCH ? "micro-batch" : "iteration") << ", buckets "
       << (c.bucketMiB > 0 ? Num(c.bucketMiB) + " MiB" : std::string("per layer"))
       << (c.overlapGradReduce ? ", overlapped with backward" : ", after backward")
       << (c.recompute == LlmRecompute::FULL ? "; full activation recompute" : "") << "\n";
    os << "FLOPs per iteration (all NPUs): " << std::scientific << std::setprecision(4)
       << GetIterationFlops() << std::defaultfloat << "\n";
    os << "communicator groups: " << P.groups.size() << "\n";
    for (uint32_t st = 0; st < c.pp; ++st)
    {
        if (st > 0 && st + 1 < c.pp && st != 1)
        {
            continue; // first, second and last stage are representative
        }
        const LlmMemoryEstimate me = GetMemoryEstimate(st);
        os << "stage " << st << " rank memory: params " << Human(double(me.params)) << ", grads "
           << Human(double(me.grads)) << ", optimizer " << Human(double(me.optimizer))
           << ", activations " << Human(double(me.activations)) << ", total "
           << Human(double(me.Total())) << "\n";
    }
    return os.str();
}

} // namespace astra
} // namespace ns3
