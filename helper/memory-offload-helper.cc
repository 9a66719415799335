/*
 * OffloadStepWorkload (memory-offload-helper.h).
 */

#include "memory-offload-helper.h"

#include "ns3/astra-diagnostics.h"

#include <cmath>
#include <string>

namespace ns3
{
namespace astra
{

uint64_t
OffloadStepWorkload::LayerParams() const
{
    return 12 * uint64_t(hidden) * hidden + 13 * uint64_t(hidden);
}

uint64_t
OffloadStepWorkload::ShardParams() const
{
    return ranks == 0 ? 0 : (LayerParams() + ranks - 1) / ranks;
}

uint64_t
OffloadStepWorkload::ReadBytesPerRank() const
{
    return uint64_t(layers) * ShardParams() * (2 + 2 + 12);
}

uint64_t
OffloadStepWorkload::WriteBytesPerRank() const
{
    return uint64_t(layers) * ShardParams() * (2 + 12);
}

std::vector<WorkloadGraph>
OffloadStepWorkload::Build() const
{
    if (layers == 0 || hidden == 0 || tokens == 0 || ranks == 0 || !(tflops > 0) ||
        !std::isfinite(tflops))
    {
        throw InputError("offload step: layers, hidden size, tokens and ranks must be >= 1 and "
                         "Tflops > 0 (got " +
                         std::to_string(layers) + ", " + std::to_string(hidden) + ", " +
                         std::to_string(tokens) + ", " + std::to_string(ranks) + ", " +
                         std::to_string(tflops) + ")");
    }
    const uint64_t pl = LayerParams();
    const uint64_t s = ShardParams();
    const auto flopsNs = [&](double flops) {
        return std::max<uint64_t>(1, uint64_t(std::llround(flops / (tflops * 1e3))));
    };
    std::vector<WorkloadGraph> out(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        WorkloadGraph& g = out[r];
        g.rank = r;
        uint64_t id = 0;
        auto add = [&](WorkloadNode n) {
            n.id = ++id;
            g.nodes.push_back(std::move(n));
            return id;
        };
        auto mem = [&](NodeKind k, const std::string& name, uint64_t bytes, uint64_t dep) {
            WorkloadNode n;
            n.kind = k;
            n.name = name;
            n.tensorSize = bytes;
            if (dep)
            {
                n.dataDeps = {dep};
            }
            return add(n);
        };
        auto coll = [&](CollType t, const std::string& name, uint64_t bytes, uint64_t dep) {
            WorkloadNode n;
            n.kind = NodeKind::COMM_COLL;
            n.name = name;
            n.collType = t;
            n.commSize = bytes;
            n.dataDeps = {dep};
            return add(n);
        };
        auto comp = [&](const std::string& name, double flops, std::vector<uint64_t> deps) {
            WorkloadNode n;
            n.kind = NodeKind::COMP;
            n.name = name;
            n.numOps = uint64_t(flops);
            n.hasNumOps = true;
            n.durationNs = flopsNs(flops);
            for (uint64_t d : deps)
            {
                if (d)
                {
                    n.dataDeps.push_back(d);
                }
            }
            return add(n);
        };
        const std::string L = "layer";
        uint64_t prevAg = 0;
        uint64_t prevComp = 0;
        for (uint32_t l = 0; l < layers; ++l)
        {
            const std::string p = L + std::to_string(l);
            const uint64_t ld = mem(NodeKind::MEM_LOAD, p + ".params", 2 * s, prevAg);
            prevAg = coll(CollType::ALL_GATHER, p + ".fwd.allgather", 2 * s, ld);
            prevComp = comp(p + ".fwd", 2.0 * tokens * pl, {prevAg, prevComp});
        }
        uint64_t bwdAg = prevComp;
        for (uint32_t k = layers; k-- > 0;)
        {
            const std::string p = L + std::to_string(k);
            const uint64_t ld = mem(NodeKind::MEM_LOAD, p + ".params", 2 * s, bwdAg);
            bwdAg = coll(CollType::ALL_GATHER, p + ".bwd.allgather", 2 * s, ld);
            prevComp = comp(p + ".bwd", 4.0 * tokens * pl, {bwdAg, prevComp});
            const uint64_t rs =
                coll(CollType::REDUCE_SCATTER, p + ".bwd.reducescatter", 2 * s * ranks, prevComp);
            mem(NodeKind::MEM_STORE, p + ".grads", 2 * s, rs);
            const uint64_t ol = mem(NodeKind::MEM_LOAD, p + ".optimizer", 12 * s, rs);
            const uint64_t step = comp(p + ".adam", 10.0 * s, {ol});
            mem(NodeKind::MEM_STORE, p + ".optimizer", 12 * s, step);
        }
        g.BuildIndex();
    }
    return out;
}

} // namespace astra
} // namespace ns3
