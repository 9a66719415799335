#include "collective-algorithm.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{
namespace astra
{

const char*
PhaseOpName(PhaseOp op)
{
    switch (op)
    {
    case PhaseOp::ALL_REDUCE:
        return "ALL_REDUCE";
    case PhaseOp::REDUCE_SCATTER:
        return "REDUCE_SCATTER";
    case PhaseOp::ALL_GATHER:
        return "ALL_GATHER";
    case PhaseOp::ALL_TO_ALL:
        return "ALL_TO_ALL";
    case PhaseOp::REDUCE:
        return "REDUCE";
    case PhaseOp::GATHER:
        return "GATHER";
    case PhaseOp::SCATTER:
        return "SCATTER";
    case PhaseOp::BROADCAST:
        return "BROADCAST";
    case PhaseOp::BARRIER:
        return "BARRIER";
    }
    return "?";
}

namespace
{

bool
IsPow2(uint32_t n)
{
    return n && !(n & (n - 1));
}

uint32_t
Log2(uint32_t n)
{
    uint32_t l = 0;
    while ((1u << l) < n)
    {
        ++l;
    }
    return l;
}

uint64_t
Div(uint64_t bytes, uint32_t n)
{
    return std::max<uint64_t>(1, bytes / n);
}

uint32_t
DirectRounds(uint32_t n, uint32_t window)
{
    uint32_t w = (window == 0 || window >= n - 1) ? n - 1 : window;
    return (n - 1 + w - 1) / w;
}

void
DirectRound(uint32_t n, uint32_t rank, uint32_t window, uint32_t k, uint64_t bytes, Step& out)
{
    uint32_t w = (window == 0 || window >= n - 1) ? n - 1 : window;
    uint32_t first = k * w + 1;
    uint32_t last = std::min(n - 1, (k + 1) * w);
    for (uint32_t o = first; o <= last; ++o)
    {
        out.sends.push_back({(rank + o) % n, bytes});
    }
    out.recvs = last - first + 1;
}

/// Root-based primitives shared by every family (root = member 0).
uint32_t
MiscSteps(PhaseOp op, uint32_t n)
{
    switch (op)
    {
    case PhaseOp::REDUCE:
        return n; // n-1 ring reduce-scatter steps + 1 gather of shards
    case PhaseOp::GATHER:
    case PhaseOp::SCATTER:
        return 1;
    case PhaseOp::BROADCAST:
        return n; // scatter + ring all-gather of the pieces
    case PhaseOp::BARRIER:
        return Log2(n);
    default:
        return 0;
    }
}

void
MiscStep(PhaseOp op, uint32_t n, uint32_t rank, uint64_t bytes, uint32_t k, Step& out)
{
    switch (op)
    {
    case PhaseOp::REDUCE:
        if (k + 1 < n)
        {
            out.sends.push_back({(rank + 1) % n, Div(bytes, n)});
            out.recvs = 1;
            out.reduce = true;
        }
        else if (rank == 0)
        {
            out.recvs = n - 1;
        }
        else
        {
            out.sends.push_back({0, Div(bytes, n)});
        }
        break;
    case PhaseOp::GATHER:
        if (rank == 0)
        {
            out.recvs = n - 1;
        }
        else
        {
            out.sends.push_back({0, bytes});
        }
        break;
    case PhaseOp::SCATTER:
    case PhaseOp::BROADCAST:
        if (k == 0)
        {
            if (rank == 0)
            {
                for (uint32_t p = 1; p < n; ++p)
                {
                    out.sends.push_back({p, Div(bytes, n)});
                }
            }
            else
            {
                out.recvs = 1;
            }
        }
        else
        {
            out.sends.push_back({(rank + 1) % n, Div(bytes, n)});
            out.recvs = 1;
        }
        break;
    case PhaseOp::BARRIER:
        out.sends.push_back({(rank + (1u << k)) % n, 1});
        out.recvs = 1;
        break;
    default:
        break;
    }
}

bool
IsMisc(PhaseOp op)
{
    return op == PhaseOp::REDUCE || op == PhaseOp::GATHER || op == PhaseOp::SCATTER ||
           op == PhaseOp::BROADCAST || op == PhaseOp::BARRIER;
}

} // namespace

AlgoSpec
CollectiveAlgorithm::Effective(const AlgoSpec& spec, PhaseOp op, uint32_t n)
{
    AlgoSpec s = spec;
    if (s.kind == AlgoKind::HALVING_DOUBLING && !IsPow2(n))
    {
        s.kind = AlgoKind::RING;
    }
    if (s.kind == AlgoKind::DOUBLE_BINARY_TREE && op != PhaseOp::ALL_REDUCE)
    {
        s.kind = AlgoKind::RING;
    }
    return s;
}

uint32_t
CollectiveAlgorithm::NumSteps(const AlgoSpec& spec, PhaseOp op, uint32_t n, uint32_t rank)
{
    if (n <= 1)
    {
        return 0;
    }
    if (IsMisc(op))
    {
        return MiscSteps(op, n);
    }
    switch (spec.kind)
    {
    case AlgoKind::RING:
    case AlgoKind::CUSTOM:
        switch (op)
        {
        case PhaseOp::ALL_REDUCE:
            return 2 * (n - 1);
        case PhaseOp::ALL_TO_ALL:
            return n * (n - 1) / 2;
        default:
            return n - 1;
        }
    case AlgoKind::DIRECT: {
        uint32_t r = DirectRounds(n, spec.window);
        return op == PhaseOp::ALL_REDUCE ? 2 * r : r;
    }
    case AlgoKind::HALVING_DOUBLING: {
        uint32_t l = Log2(n);
        return op == PhaseOp::ALL_REDUCE ? 2 * l : l;
    }
    case AlgoKind::DOUBLE_BINARY_TREE:
        return 6; // tree 0 then tree 1: reduce up, exchange with parent, broadcast down
    }
    return 0;
}

void
CollectiveAlgorithm::GetStep(const AlgoSpec& spec,
                             PhaseOp op,
                             uint32_t n,
                             uint32_t rank,
                             uint64_t bytes,
                             uint32_t k,
                             Step& out)
{
    out.sends.clear();
    out.recvs = 0;
    out.reduce = false;
    if (IsMisc(op))
    {
        MiscStep(op, n, rank, bytes, k, out);
        return;
    }
    switch (spec.kind)
    {
    case AlgoKind::RING:
    case AlgoKind::CUSTOM: {
        uint64_t m = op == PhaseOp::ALL_GATHER ? bytes : Div(bytes, n);
        out.sends.push_back({(rank + 1) % n, m});
        out.recvs = 1;
        out.reduce = (op == PhaseOp::REDUCE_SCATTER) || (op == PhaseOp::ALL_REDUCE && k < n - 1);
        return;
    }
    case AlgoKind::DIRECT: {
        uint32_t rounds = DirectRounds(n, spec.window);
        if (op == PhaseOp::ALL_REDUCE)
        {
            DirectRound(n, rank, spec.window, k % rounds, Div(bytes, n), out);
            out.reduce = k < rounds;
        }
        else
        {
            DirectRound(n,
                        rank,
                        spec.window,
                        k,
                        op == PhaseOp::ALL_GATHER ? bytes : Div(bytes, n),
                        out);
            out.reduce = op == PhaseOp::REDUCE_SCATTER;
        }
        return;
    }
    case AlgoKind::HALVING_DOUBLING: {
        uint32_t l = Log2(n);
        out.recvs = 1;
        if (op == PhaseOp::ALL_TO_ALL)
        {
            out.sends.push_back({rank ^ (1u << k), Div(bytes, 2)});
            return;
        }
        uint64_t in = bytes;
        bool rs = op == PhaseOp::REDUCE_SCATTER || (op == PhaseOp::ALL_REDUCE && k < l);
        if (rs)
        {
            uint32_t dist = n >> (k + 1);
            out.sends.push_back({rank ^ dist, std::max<uint64_t>(1, in >> (k + 1))});
            out.reduce = true;
        }
        else
        {
            uint32_t j = op == PhaseOp::ALL_REDUCE ? k - l : k;
            if (op == PhaseOp::ALL_REDUCE)
            {
                in = Div(bytes, n);
            }
            out.sends.push_back({rank ^ (1u << j), in << j});
        }
        return;
    }
    case AlgoKind::DOUBLE_BINARY_TREE: {
        // tree 0: heap order on the index; tree 1: heap order on the mirrored index. Each tree
        // carries half of the data; the trees run one after the other so that a node that is
        // interior in one tree and a leaf in the other never waits on both at once.
        uint64_t half = Div(bytes, 2);
        const uint32_t t = k / 3;
        const uint32_t sub = k % 3;
        uint32_t i = t == 0 ? rank : n - 1 - rank;
        auto member = [&](uint32_t idx) { return t == 0 ? idx : n - 1 - idx; };
        for (uint32_t c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c)
        {
            if (sub == 0)
            {
                out.recvs += 1;
                out.reduce = true;
            }
            else if (sub == 2)
            {
                out.sends.push_back({member(c), half, int32_t(3 * t + 1)});
            }
        }
        if (sub == 1 && i != 0)
        {
            out.sends.push_back({member((i - 1) / 2), half, int32_t(3 * t)});
            out.recvs = 1;
        }
        return;
    }
    }
}

uint64_t
CollectiveAlgorithm::OutputBytes(PhaseOp op, uint32_t n, uint64_t bytes)
{
    switch (op)
    {
    case PhaseOp::REDUCE_SCATTER:
        return std::max<uint64_t>(1, bytes / n);
    case PhaseOp::ALL_GATHER:
        return bytes * n;
    default:
        return bytes;
    }
}

} // namespace astra
} // namespace ns3
