/*
 * ASTRA-sim 1.0 text workloads -> per-rank WorkloadGraphs.
 * The graph semantics are documented in text-workload.h.
 */

#include "text-workload.h"

#include "ns3/astra-input.h"
#include "ns3/log.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AstraTextWorkload");

namespace astra
{

const char*
TextParallelismName(TextParallelism p)
{
    switch (p)
    {
    case TextParallelism::MICRO:
        return "MICRO";
    case TextParallelism::DATA:
        return "DATA";
    case TextParallelism::MODEL:
        return "MODEL";
    case TextParallelism::HYBRID_DATA_MODEL:
        return "HYBRID_DATA_MODEL";
    case TextParallelism::HYBRID_MODEL_DATA:
        return "HYBRID_MODEL_DATA";
    case TextParallelism::HYBRID_DLRM:
        return "HYBRID_DLRM";
    case TextParallelism::HYBRID_TRANSFORMER:
        return "HYBRID_TRANSFORMER";
    case TextParallelism::HYBRID_TRANSFORMER_FWD_IN_BCKWD:
        return "HYBRID_TRANSFORMER_FWD_IN_BCKWD";
    case TextParallelism::HYBRID_CUSTOMIZED:
        return "HYBRID_CUSTOMIZED";
    }
    return "?";
}

namespace
{

[[noreturn]] void
FailLine(const std::string& file, uint32_t line, const std::string& what)
{
    throw WorkloadError(file + ":" + std::to_string(line) + ": " + what);
}

bool
ParseParallelism(const std::string& s, TextParallelism& p)
{
    static const std::pair<const char*, TextParallelism> names[] = {
        {"MICRO", TextParallelism::MICRO},
        {"DATA", TextParallelism::DATA},
        {"MODEL", TextParallelism::MODEL},
        {"HYBRID_DATA_MODEL", TextParallelism::HYBRID_DATA_MODEL},
        {"HYBRID_MODEL_DATA", TextParallelism::HYBRID_MODEL_DATA},
        {"HYBRID_DLRM", TextParallelism::HYBRID_DLRM},
        {"HYBRID_TRANSFORMER", TextParallelism::HYBRID_TRANSFORMER},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", TextParallelism::HYBRID_TRANSFORMER_FWD_IN_BCKWD},
        {"HYBRID_CUSTOMIZED", TextParallelism::HYBRID_CUSTOMIZED},
    };
    for (const auto& [n, v] : names)
    {
        if (s == n)
        {
            p = v;
            return true;
        }
    }
    return false;
}

TextCommType
ParseCommType(const std::string& s, const std::string& file, uint32_t line, const char* column)
{
    if (s == "NONE")
    {
        return TextCommType::NONE;
    }
    if (s == "ALLREDUCE")
    {
        return TextCommType::ALLREDUCE;
    }
    if (s == "ALLGATHER")
    {
        return TextCommType::ALLGATHER;
    }
    if (s == "REDUCESCATTER")
    {
        return TextCommType::REDUCESCATTER;
    }
    if (s == "ALLTOALL")
    {
        return TextCommType::ALLTOALL;
    }
    FailLine(file,
             line,
             std::string("unknown ") + column + " comm type '" + s +
                 "' (expected NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL)");
}

const char*
CommTypeToken(TextCommType t)
{
    switch (t)
    {
    case TextCommType::NONE:
        return "NONE";
    case TextCommType::ALLREDUCE:
        return "ALLREDUCE";
    case TextCommType::ALLGATHER:
        return "ALLGATHER";
    case TextCommType::REDUCESCATTER:
        return "REDUCESCATTER";
    case TextCommType::ALLTOALL:
        return "ALLTOALL";
    }
    return "?";
}

CollType
ToCollType(TextCommType t)
{
    switch (t)
    {
    case TextCommType::ALLGATHER:
        return CollType::ALL_GATHER;
    case TextCommType::REDUCESCATTER:
        return CollType::REDUCE_SCATTER;
    case TextCommType::ALLTOALL:
        return CollType::ALL_TO_ALL;
    default:
        return CollType::ALL_REDUCE;
    }
}

uint64_t
ParseUint(const std::string& s, const std::string& file, uint32_t line, const char* what)
{
    if (s.empty() || s[0] == '-')
    {
        FailLine(file, line, std::string("bad ") + what + " '" + s + "' (expected a number >= 0)");
    }
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (errno == 0 && end != nullptr && *end == '\0')
    {
        return v;
    }
    // compute times may be written with decimals: round to the nearest cycle
    errno = 0;
    double d = std::strtod(s.c_str(), &end);
    if (errno != 0 || end == nullptr || *end != '\0' || !std::isfinite(d) || d < 0 || d > 1.8e19)
    {
        FailLine(file, line, std::string("bad ") + what + " '" + s + "' (expected a number >= 0)");
    }
    return static_cast<uint64_t>(std::llround(d));
}

int64_t
ParseInt(const std::string& s, const std::string& file, uint32_t line, const char* what)
{
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || errno != 0 || end == nullptr || *end != '\0')
    {
        FailLine(file, line, std::string("bad ") + what + " '" + s + "' (expected an integer)");
    }
    return v;
}

std::vector<std::string>
Tokens(const std::string& line)
{
    std::istringstream is(line);
    std::vector<std::string> t;
    std::string s;
    while (is >> s)
    {
        t.push_back(s);
    }
    return t;
}

/// Communicator groups of one workload: inner groups (consecutive NPUs) and outer groups
/// (stride P); registered as they are used.
class Groups
{
  public:
    Groups(uint32_t npus, uint32_t p)
        : m_npus(npus),
          m_p(p)
    {
    }

    std::string Inner(const std::string& prefix, uint32_t rank)
    {
        if (m_p >= m_npus)
        {
            return "";
        }
        uint32_t k = rank / m_p;
        std::string name = prefix + std::to_string(k);
        auto& members = m_groups[name];
        if (members.empty())
        {
            for (uint32_t r = k * m_p; r < (k + 1) * m_p; ++r)
            {
                members.push_back(r);
            }
        }
        return name;
    }

    std::string Outer(const std::string& prefix, uint32_t rank)
    {
        if (m_p <= 1)
        {
            return "";
        }
        uint32_t j = rank % m_p;
        std::string name = prefix + std::to_string(j);
        auto& members = m_groups[name];
        if (members.empty())
        {
            for (uint32_t r = j; r < m_npus; r += m_p)
            {
                members.push_back(r);
            }
        }
        return name;
    }

    const std::map<std::string, std::vector<uint32_t>>& All() const
    {
        return m_groups;
    }

  private:
    uint32_t m_npus;
    uint32_t m_p;
    std::map<std::string, std::vector<uint32_t>> m_groups;
};

/// Builds the graph of one rank.
class RankBuilder
{
  public:
    RankBuilder(const TextWorkload& w,
                uint32_t rank,
                const TextWorkloadOptions& opts,
                Groups& groups,
                WorkloadGraph& g)
        : m_w(w),
          m_rank(rank),
          m_opts(opts),
          m_groups(groups),
          m_g(g)
    {
    }

    void Build()
    {
        const size_t L = m_w.layers.size();
        std::vector<uint64_t> passEnd;
        std::vector<std::vector<uint64_t>> wgDone(L);
        for (uint32_t pass = 0; pass < std::max<uint32_t>(1, m_opts.numPasses); ++pass)
        {
            m_suffix = m_opts.numPasses > 1 ? "_pass" + std::to_string(pass) : "";
            std::vector<std::vector<uint64_t>> wgDoneNext(L);
            std::vector<uint64_t> fwdEnd = Forward(passEnd, wgDone);
            passEnd = Backward(fwdEnd, wgDoneNext);
            wgDone = std::move(wgDoneNext);
        }
    }

  private:
    bool IsDlrm() const
    {
        return m_w.parallelism == TextParallelism::HYBRID_DLRM;
    }

    /// First top-MLP layer of a DLRM (L if none).
    size_t DlrmTop() const
    {
        return std::min<size_t>(m_w.dlrmLastBottomLayer + 1, m_w.layers.size());
    }

    TextParallelism LayerPolicy(const TextLayer& l) const
    {
        return m_w.parallelism == TextParallelism::HYBRID_CUSTOMIZED ? l.parallelism
                                                                     : m_w.parallelism;
    }

    std::string Pg(const TextLayer& l, bool weightGrad)
    {
        switch (LayerPolicy(l))
        {
        case TextParallelism::HYBRID_DATA_MODEL:
        case TextParallelism::HYBRID_TRANSFORMER:
        case TextParallelism::HYBRID_TRANSFORMER_FWD_IN_BCKWD:
            return weightGrad ? m_groups.Outer("dp", m_rank) : m_groups.Inner("mp", m_rank);
        case TextParallelism::HYBRID_MODEL_DATA: {
            std::string pre = m_w.parallelism == TextParallelism::HYBRID_CUSTOMIZED ? "hmd_" : "";
            return weightGrad ? m_groups.Inner(pre + "dp", m_rank)
                              : m_groups.Outer(pre + "mp", m_rank);
        }
        default:
            return "";
        }
    }

    uint64_t Comp(const std::string& name, uint64_t cycles, const std::vector<uint64_t>& deps)
    {
        WorkloadNode n;
        n.id = m_g.nodes.size();
        n.name = "COMP_NODE_" + name + m_suffix;
        n.kind = NodeKind::COMP;
        n.dataDeps = deps;
        n.durationNs = cycles;
        n.durationMicros = (cycles + 999) / 1000;
        m_g.nodes.push_back(n);
        return n.id;
    }

    uint64_t Coll(const TextLayer& l,
                  TextCommType t,
                  uint64_t size,
                  bool weightGrad,
                  const std::vector<uint64_t>& deps)
    {
        WorkloadNode n;
        n.id = m_g.nodes.size();
        n.name = "COMM_COLL_NODE_" + l.name + "_" + CommTypeToken(t) + m_suffix;
        n.kind = NodeKind::COMM_COLL;
        n.collType = ToCollType(t);
        n.commSize = size;
        n.pgName = Pg(l, weightGrad);
        n.dataDeps = deps;
        m_g.nodes.push_back(n);
        return n.id;
    }

    static bool HasComm(TextCommType t, uint64_t size)
    {
        return t != TextCommType::NONE && size > 0;
    }

    /// Forward pass; \return the ids the backward pass starts after.
    std::vector<uint64_t> Forward(const std::vector<uint64_t>& passEnd,
                                  const std::vector<std::vector<uint64_t>>& wgDone)
    {
        std::vector<uint64_t> prev = passEnd;
        std::vector<uint64_t> embA2a;
        for (size_t i = 0; i < m_w.layers.size(); ++i)
        {
            const TextLayer& l = m_w.layers[i];
            std::vector<uint64_t> deps = prev;
            deps.insert(deps.end(), wgDone[i].begin(), wgDone[i].end());
            if (IsDlrm() && i == DlrmTop())
            {
                deps.insert(deps.end(), embA2a.begin(), embA2a.end());
                embA2a.clear();
            }
            uint64_t c = Comp(l.name + "_FWD", l.fwdComp, deps);
            prev = {c};
            if (HasComm(l.fwdCommType, l.fwdCommSize))
            {
                uint64_t m = Coll(l, l.fwdCommType, l.fwdCommSize, false, {c});
                if (IsDlrm() && i == 0)
                {
                    embA2a = {m}; // overlaps with the bottom MLP
                }
                else
                {
                    prev = {m};
                }
            }
        }
        prev.insert(prev.end(), embA2a.begin(), embA2a.end());
        return prev;
    }

    /// Recompute the forward of layers c..i (activation checkpointing).
    std::vector<uint64_t> Recompute(size_t i, std::vector<uint64_t> prev)
    {
        const auto& inits = m_w.checkpointInitiates;
        if (m_w.parallelism != TextParallelism::HYBRID_TRANSFORMER_FWD_IN_BCKWD ||
            std::find(inits.begin(), inits.end(), i) == inits.end())
        {
            return prev;
        }
        size_t start = 0;
        for (uint32_t c : m_w.checkpoints)
        {
            if (c <= i && c >= start)
            {
                start = c;
            }
        }
        for (size_t k = start; k <= i; ++k)
        {
            const TextLayer& l = m_w.layers[k];
            uint64_t c = Comp(l.name + "_FWD_RECOMP", l.fwdComp, prev);
            prev = {c};
            if (HasComm(l.fwdCommType, l.fwdCommSize))
            {
                prev = {Coll(l, l.fwdCommType, l.fwdCommSize, false, {c})};
                m_g.nodes.back().name += "_RECOMP";
            }
        }
        return prev;
    }

    std::vector<uint64_t> Backward(const std::vector<uint64_t>& fwdEnd,
                                   std::vector<std::vector<uint64_t>>& wgDone)
    {
        std::vector<uint64_t> prev = fwdEnd;
        std::vector<uint64_t> embA2a;
        const size_t L = m_w.layers.size();
        if (IsDlrm() && DlrmTop() >= L)
        {
            // no top MLP: the embedding's input-gradient all-to-all starts the backward
            const TextLayer& emb = m_w.layers[0];
            if (HasComm(emb.igCommType, emb.igCommSize))
            {
                embA2a = {Coll(emb, emb.igCommType, emb.igCommSize, false, prev)};
            }
        }
        for (size_t idx = L; idx-- > 0;)
        {
            const TextLayer& l = m_w.layers[idx];
            prev = Recompute(idx, prev);
            std::vector<uint64_t> deps = prev;
            if (IsDlrm() && idx == 0)
            {
                deps.insert(deps.end(), embA2a.begin(), embA2a.end());
                embA2a.clear();
            }
            uint64_t ig = Comp(l.name + "_BWD_IG", l.igComp, deps);
            std::vector<uint64_t> igEnd{ig};
            bool igComm = idx > 0 && HasComm(l.igCommType, l.igCommSize);
            if (IsDlrm() && idx == 0)
            {
                igComm = false; // issued after the top-MLP backward (embA2a)
            }
            if (igComm)
            {
                igEnd = {Coll(l, l.igCommType, l.igCommSize, false, {ig})};
            }
            uint64_t wg = Comp(l.name + "_BWD_WG", l.wgComp, {ig});
            std::vector<uint64_t> done;
            if (HasComm(l.wgCommType, l.wgCommSize))
            {
                done = {Coll(l, l.wgCommType, l.wgCommSize, true, {wg})};
            }
            if (m_opts.emitWeightUpdate)
            {
                done = {Comp(l.name + "_WG_UPDATE",
                             l.wgUpdate,
                             done.empty() ? std::vector<uint64_t>{wg} : done)};
            }
            wgDone[idx] = done;
            prev = {wg};
            if (igComm)
            {
                prev.push_back(igEnd[0]);
            }
            const TextLayer& emb = m_w.layers[0];
            if (IsDlrm() && idx == DlrmTop() && idx > 0 && HasComm(emb.igCommType, emb.igCommSize))
            {
                // embedding input-gradient all-to-all, overlapping the bottom-MLP backward
                embA2a = {Coll(emb, emb.igCommType, emb.igCommSize, false, igEnd)};
            }
        }
        return prev;
    }

    const TextWorkload& m_w;
    uint32_t m_rank;
    const TextWorkloadOptions& m_opts;
    Groups& m_groups;
    WorkloadGraph& m_g;
    std::string m_suffix;
};

} // namespace

TextWorkload
ParseTextWorkload(const std::string& path)
{
    std::istringstream in;
    try
    {
        in.str(ReadInputFile(path, "text workload"));
    }
    catch (const ConfigError& e)
    {
        throw WorkloadError(e.what());
    }
    TextWorkload w;
    w.file = path;
    std::string line;
    uint32_t lineNo = 0;
    auto nextLine = [&](std::vector<std::string>& toks) {
        while (std::getline(in, line))
        {
            ++lineNo;
            if (!line.empty() && line.back() == '\r')
            {
                line.pop_back();
            }
            toks = Tokens(line);
            if (!toks.empty())
            {
                return true;
            }
        }
        return false;
    };
    std::vector<std::string> t;
    if (!nextLine(t))
    {
        throw WorkloadError(path + ": empty text workload file");
    }
    if (!ParseParallelism(t[0], w.parallelism))
    {
        FailLine(path,
                 lineNo,
                 "unknown parallelism '" + t[0] +
                     "' (expected MICRO, DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, "
                     "HYBRID_DLRM, HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD or "
                     "HYBRID_CUSTOMIZED)");
    }
    auto readList = [&](size_t& k, std::vector<uint32_t>& out, const char* what) {
        if (k + 1 >= t.size())
        {
            FailLine(path, lineNo, std::string("'") + what + "' needs a count");
        }
        uint64_t n = ParseUint(t[++k], path, lineNo, what);
        for (uint64_t c = 0; c < n; ++c)
        {
            if (k + 1 >= t.size())
            {
                FailLine(path,
                         lineNo,
                         std::string("'") + what + "' declares " + std::to_string(n) +
                             " values but fewer follow");
            }
            out.push_back(static_cast<uint32_t>(ParseUint(t[++k], path, lineNo, what)));
        }
    };
    for (size_t k = 1; k < t.size(); ++k)
    {
        if (t[k] == "model_parallel_NPU_group:")
        {
            if (k + 1 >= t.size())
            {
                FailLine(path, lineNo, "'model_parallel_NPU_group:' needs a value");
            }
            w.modelParallelGroup =
                static_cast<uint32_t>(ParseUint(t[++k], path, lineNo, "model_parallel_NPU_group"));
            if (w.modelParallelGroup == 0)
            {
                FailLine(path, lineNo, "model_parallel_NPU_group must be > 0");
            }
        }
        else if (t[k] == "checkpoints:")
        {
            readList(k, w.checkpoints, "checkpoints");
        }
        else if (t[k] == "checkpoint_initiates:")
        {
            readList(k, w.checkpointInitiates, "checkpoint_initiates");
        }
        else if (w.parallelism == TextParallelism::HYBRID_DLRM && k == 1)
        {
            w.dlrmLastBottomLayer =
                static_cast<uint32_t>(ParseUint(t[k], path, lineNo, "DLRM last bottom layer"));
        }
        else
        {
            FailLine(path, lineNo, "unexpected '" + t[k] + "' after " + t[0]);
        }
    }
    if (!nextLine(t))
    {
        FailLine(path, lineNo + 1, "missing the number of layers");
    }
    uint64_t nLayers = ParseUint(t[0], path, lineNo, "number of layers");
    if (nLayers == 0)
    {
        FailLine(path, lineNo, "number of layers must be > 0");
    }
    const bool custom = w.parallelism == TextParallelism::HYBRID_CUSTOMIZED;
    for (uint64_t i = 0; i < nLayers; ++i)
    {
        if (!nextLine(t))
        {
            FailLine(path,
                     lineNo + 1,
                     "file declares " + std::to_string(nLayers) + " layers but has only " +
                         std::to_string(i));
        }
        const size_t need = custom ? 13 : 12;
        if (t.size() < need)
        {
            FailLine(path,
                     lineNo,
                     "layer line has " + std::to_string(t.size()) + " columns, expected " +
                         std::to_string(need) +
                         (custom ? " (name reserved fwd_comp fwd_comm_type fwd_comm_size ig_comp "
                                   "ig_comm_type ig_comm_size wg_comp wg_comm_type wg_comm_size "
                                   "wg_update_time parallelism)"
                                 : " (name reserved fwd_comp fwd_comm_type fwd_comm_size ig_comp "
                                   "ig_comm_type ig_comm_size wg_comp wg_comm_type wg_comm_size "
                                   "wg_update_time)"));
        }
        TextLayer l;
        l.line = lineNo;
        l.name = t[0];
        l.reserved = ParseInt(t[1], path, lineNo, "reserved column");
        l.fwdComp = ParseUint(t[2], path, lineNo, "forward compute time");
        l.fwdCommType = ParseCommType(t[3], path, lineNo, "forward");
        l.fwdCommSize = ParseUint(t[4], path, lineNo, "forward comm size");
        l.igComp = ParseUint(t[5], path, lineNo, "input-gradient compute time");
        l.igCommType = ParseCommType(t[6], path, lineNo, "input-gradient");
        l.igCommSize = ParseUint(t[7], path, lineNo, "input-gradient comm size");
        l.wgComp = ParseUint(t[8], path, lineNo, "weight-gradient compute time");
        l.wgCommType = ParseCommType(t[9], path, lineNo, "weight-gradient");
        l.wgCommSize = ParseUint(t[10], path, lineNo, "weight-gradient comm size");
        l.wgUpdate = ParseUint(t[11], path, lineNo, "weight update time");
        if (custom)
        {
            if (!ParseParallelism(t[12], l.parallelism) ||
                !(l.parallelism == TextParallelism::DATA ||
                  l.parallelism == TextParallelism::MODEL ||
                  l.parallelism == TextParallelism::HYBRID_DATA_MODEL ||
                  l.parallelism == TextParallelism::HYBRID_MODEL_DATA))
            {
                FailLine(path,
                         lineNo,
                         "unknown per-layer parallelism '" + t[12] +
                             "' (expected DATA, MODEL, HYBRID_DATA_MODEL or HYBRID_MODEL_DATA)");
            }
        }
        else
        {
            l.parallelism = w.parallelism;
        }
        w.layers.push_back(l);
    }
    if (nextLine(t))
    {
        FailLine(path,
                 lineNo,
                 "extra line after the " + std::to_string(nLayers) + " declared layers");
    }
    for (uint32_t c : w.checkpoints)
    {
        if (c >= w.layers.size())
        {
            throw WorkloadError(path + ": checkpoint layer " + std::to_string(c) +
                                " out of range (" + std::to_string(w.layers.size()) + " layers)");
        }
    }
    for (uint32_t c : w.checkpointInitiates)
    {
        if (c >= w.layers.size())
        {
            throw WorkloadError(path + ": checkpoint_initiates layer " + std::to_string(c) +
                                " out of range (" + std::to_string(w.layers.size()) + " layers)");
        }
    }
    return w;
}

std::vector<WorkloadGraph>
BuildTextWorkloadGraphs(const TextWorkload& w, uint32_t npus, const TextWorkloadOptions& opts)
{
    if (npus == 0)
    {
        throw WorkloadError(w.file + ": number of NPUs must be > 0");
    }
    uint32_t p = opts.packageSize != 0 ? opts.packageSize : w.modelParallelGroup;
    if (p == 0)
    {
        for (uint32_t d = 1; static_cast<uint64_t>(d) * d <= npus; ++d)
        {
            if (npus % d == 0)
            {
                p = d;
            }
        }
    }
    if (npus % p != 0)
    {
        throw WorkloadError(w.file + ": group size " + std::to_string(p) +
                            " (model_parallel_NPU_group / package size) does not divide " +
                            std::to_string(npus) + " NPUs");
    }
    Groups groups(npus, p);
    std::vector<WorkloadGraph> graphs(npus);
    for (uint32_t r = 0; r < npus; ++r)
    {
        WorkloadGraph& g = graphs[r];
        g.file = w.file + " (rank " + std::to_string(r) + ")";
        g.rank = r;
        g.version = std::string("astra-sim-1.0-text:") + TextParallelismName(w.parallelism);
        RankBuilder(w, r, opts, groups, g).Build();
    }
    for (auto& g : graphs)
    {
        g.commGroups = groups.All();
        g.Validate();
    }
    NS_LOG_INFO(w.file << ": " << TextParallelismName(w.parallelism) << ", " << w.layers.size()
                       << " layers, " << npus << " NPUs, group size " << p << ", "
                       << graphs[0].nodes.size() << " nodes per rank");
    return graphs;
}

std::vector<WorkloadGraph>
ReadTextWorkload(const std::string& path, uint32_t npus, const TextWorkloadOptions& opts)
{
    return BuildTextWorkloadGraphs(ParseTextWorkload(path), npus, opts);
}

} // namespace astra
} // namespace ns3
