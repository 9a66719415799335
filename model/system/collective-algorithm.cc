#include "collective-algorithm.h"

#include "ns3/astra-config.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <stdexcept>

namespace ns3
{
namespace astra
{

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

// ---------------------------------------------------------------- the families

/// Ring: every step sends to the next member and receives from the previous one.
class RingAlgorithm : public CollectiveAlgorithm
{
  public:
    const char* GetName() const override
    {
        return "ring";
    }

    bool GetUniformStep(PhaseOp op,
                        uint32_t n,
                        uint32_t rank,
                        uint64_t bytes,
                        UniformStep& out) const override
    {
        out.peer = rank + 1 == n ? 0 : rank + 1;
        out.bytes = op == PhaseOp::ALL_GATHER ? bytes : Div(bytes, n);
        out.reduceSteps = op == PhaseOp::REDUCE_SCATTER ? UINT32_MAX
                          : op == PhaseOp::ALL_REDUCE   ? n - 1
                                                        : 0;
        return true;
    }

    uint32_t NumSteps(const AlgoSpec&, PhaseOp op, uint32_t n, uint32_t) const override
    {
        switch (op)
        {
        case PhaseOp::ALL_REDUCE:
            return 2 * (n - 1);
        case PhaseOp::ALL_TO_ALL:
            return n * (n - 1) / 2;
        default:
            return n - 1;
        }
    }

    void GetStep(const AlgoSpec&,
                 PhaseOp op,
                 uint32_t n,
                 uint32_t rank,
                 uint64_t bytes,
                 uint32_t k,
                 Step& out) const override
    {
        const uint64_t m = op == PhaseOp::ALL_GATHER ? bytes : Div(bytes, n);
        out.sends.push_back({(rank + 1) % n, m});
        out.recvs = 1;
        out.reduce = (op == PhaseOp::REDUCE_SCATTER) || (op == PhaseOp::ALL_REDUCE && k < n - 1);
    }
};

/// Direct: rounds of W peers at offsets kW+1 .. (k+1)W (all n-1 peers at once without W).
class DirectAlgorithm : public CollectiveAlgorithm
{
  public:
    const char* GetName() const override
    {
        return "direct";
    }

    bool ParseName(const std::string& name,
                   const std::string& original,
                   AlgoSpec& spec) const override
    {
        if (name.rfind("direct", 0) != 0)
        {
            return false;
        }
        const std::string rest = name.substr(6);
        if (rest.find_first_not_of("0123456789") != std::string::npos)
        {
            return false; // not directN: unknown name, with a suggestion
        }
        if (rest.size() > 9)
        {
            throw ConfigError("algorithm '" + original + "': window must be at most 999999999");
        }
        spec.kind = AlgoKind::DIRECT;
        spec.window = rest.empty() ? 0 : static_cast<uint32_t>(std::stoul(rest));
        if (!rest.empty() && spec.window == 0)
        {
            throw ConfigError("algorithm '" + original + "': window must be > 0");
        }
        return true;
    }

    uint32_t NumSteps(const AlgoSpec& spec, PhaseOp op, uint32_t n, uint32_t) const override
    {
        const uint32_t r = Rounds(n, spec.window);
        return op == PhaseOp::ALL_REDUCE ? 2 * r : r;
    }

    void GetStep(const AlgoSpec& spec,
                 PhaseOp op,
                 uint32_t n,
                 uint32_t rank,
                 uint64_t bytes,
                 uint32_t k,
                 Step& out) const override
    {
        const uint32_t rounds = Rounds(n, spec.window);
        if (op == PhaseOp::ALL_REDUCE)
        {
            Round(n, rank, spec.window, k % rounds, Div(bytes, n), out);
            out.reduce = k < rounds;
        }
        else
        {
            Round(n, rank, spec.window, k, op == PhaseOp::ALL_GATHER ? bytes : Div(bytes, n), out);
            out.reduce = op == PhaseOp::REDUCE_SCATTER;
        }
    }

  private:
    static uint32_t Rounds(uint32_t n, uint32_t window)
    {
        const uint32_t w = (window == 0 || window >= n - 1) ? n - 1 : window;
        return (n - 1 + w - 1) / w;
    }

    static void Round(uint32_t n,
                      uint32_t rank,
                      uint32_t window,
                      uint32_t k,
                      uint64_t bytes,
                      Step& out)
    {
        const uint32_t w = (window == 0 || window >= n - 1) ? n - 1 : window;
        const uint32_t first = k * w + 1;
        const uint32_t last = std::min(n - 1, (k + 1) * w);
        for (uint32_t o = first; o <= last; ++o)
        {
            out.sends.push_back({(rank + o) % n, bytes});
        }
        out.recvs = last - first + 1;
    }
};

/// Recursive halving (reduce-scatter) and doubling (all-gather); needs a power of two.
class HalvingDoublingAlgorithm : public CollectiveAlgorithm
{
  public:
    const char* GetName() const override
    {
        return "halvingDoubling";
    }

    bool CanRun(PhaseOp, uint32_t n, const DimensionSpec*) const override
    {
        return IsPow2(n);
    }

    std::string GetRequirement() const override
    {
        return "a power-of-two member count";
    }

    uint32_t NumSteps(const AlgoSpec&, PhaseOp op, uint32_t n, uint32_t) const override
    {
        const uint32_t l = Log2(n);
        return op == PhaseOp::ALL_REDUCE ? 2 * l : l;
    }

    void GetStep(const AlgoSpec&,
                 PhaseOp op,
                 uint32_t n,
                 uint32_t rank,
                 uint64_t bytes,
                 uint32_t k,
                 Step& out) const override
    {
        const uint32_t l = Log2(n);
        out.recvs = 1;
        if (op == PhaseOp::ALL_TO_ALL)
        {
            out.sends.push_back({rank ^ (1u << k), Div(bytes, 2)});
            return;
        }
        uint64_t in = bytes;
        const bool rs = op == PhaseOp::REDUCE_SCATTER || (op == PhaseOp::ALL_REDUCE && k < l);
        if (rs)
        {
            const uint32_t dist = n >> (k + 1);
            out.sends.push_back({rank ^ dist, std::max<uint64_t>(1, in >> (k + 1))});
            out.reduce = true;
        }
        else
        {
            const uint32_t j = op == PhaseOp::ALL_REDUCE ? k - l : k;
            if (op == PhaseOp::ALL_REDUCE)
            {
                in = Div(bytes, n);
            }
            out.sends.push_back({rank ^ (1u << j), in << j});
        }
    }
};

/**
 * Two complementary binary trees (all-reduce only): tree 0 in heap order on the
 * index, tree 1 on the mirrored index, each carrying half of the data, run one
 * after the other so that a node that is interior in one tree and a leaf in the
 * other never waits on both at once.
 */
class DoubleBinaryTreeAlgorithm : public CollectiveAlgorithm
{
  public:
    const char* GetName() const override
    {
        return "doubleBinaryTree";
    }

    bool CanFlatten() const override
    {
        return false; // two trees over one dimension's members only
    }

    bool CanRun(PhaseOp op, uint32_t, const DimensionSpec*) const override
    {
        return op == PhaseOp::ALL_REDUCE;
    }

    std::string GetRequirement() const override
    {
        return "an ALL_REDUCE phase";
    }

    uint32_t NumSteps(const AlgoSpec&, PhaseOp, uint32_t, uint32_t) const override
    {
        return 6; // per tree: reduce up, exchange with the parent, broadcast down
    }

    void GetStep(const AlgoSpec&,
                 PhaseOp,
                 uint32_t n,
                 uint32_t rank,
                 uint64_t bytes,
                 uint32_t k,
                 Step& out) const override
    {
        const uint64_t half = Div(bytes, 2);
        const uint32_t t = k / 3;
        const uint32_t sub = k % 3;
        const uint32_t i = t == 0 ? rank : n - 1 - rank;
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
    }
};

/// Root-based primitives shared by every family (root = member 0).
class RootedPrimitives : public CollectiveAlgorithm
{
  public:
    const char* GetName() const override
    {
        return "rooted";
    }

    bool ParseName(const std::string&, const std::string&, AlgoSpec&) const override
    {
        return false; // not a configuration name
    }

    uint32_t NumSteps(const AlgoSpec&, PhaseOp op, uint32_t n, uint32_t) const override
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

    void GetStep(const AlgoSpec&,
                 PhaseOp op,
                 uint32_t n,
                 uint32_t rank,
                 uint64_t bytes,
                 uint32_t k,
                 Step& out) const override
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
};

constexpr size_t kKinds = static_cast<size_t>(AlgoKind::CUSTOM) + 1;

/// The registry: one object per family, indexed by AlgoKind (CUSTOM: none).
struct Registry
{
    std::array<std::unique_ptr<CollectiveAlgorithm>, kKinds> byKind;
    RootedPrimitives rooted;

    Registry()
    {
        Add(AlgoKind::RING, std::make_unique<RingAlgorithm>());
        Add(AlgoKind::DIRECT, std::make_unique<DirectAlgorithm>());
        Add(AlgoKind::HALVING_DOUBLING, std::make_unique<HalvingDoublingAlgorithm>());
        Add(AlgoKind::DOUBLE_BINARY_TREE, std::make_unique<DoubleBinaryTreeAlgorithm>());
    }

    void Add(AlgoKind kind, std::unique_ptr<CollectiveAlgorithm> a)
    {
        byKind[static_cast<size_t>(kind)] = std::move(a);
    }
};

const Registry&
GetRegistry()
{
    static const Registry r; // immutable after construction: no per-simulation state
    return r;
}

} // namespace

CollectiveAlgorithm::~CollectiveAlgorithm() = default;

bool
CollectiveAlgorithm::ParseName(const std::string& name, const std::string&, AlgoSpec& spec) const
{
    if (name != GetName())
    {
        return false;
    }
    for (size_t k = 0; k < kKinds; ++k)
    {
        if (GetRegistry().byKind[k].get() == this)
        {
            spec.kind = static_cast<AlgoKind>(k);
            return true;
        }
    }
    return false;
}

bool
CollectiveAlgorithm::CanFlatten() const
{
    return true;
}

bool
CollectiveAlgorithm::CanRun(PhaseOp, uint32_t, const DimensionSpec*) const
{
    return true;
}

std::string
CollectiveAlgorithm::GetRequirement() const
{
    return "";
}

bool
CollectiveAlgorithm::GetUniformStep(PhaseOp, uint32_t, uint32_t, uint64_t, UniformStep&) const
{
    return false;
}

const CollectiveAlgorithm*
CollectiveAlgorithm::Get(AlgoKind kind)
{
    const size_t k = static_cast<size_t>(kind);
    return k < kKinds ? GetRegistry().byKind[k].get() : nullptr;
}

const CollectiveAlgorithm&
CollectiveAlgorithm::GetRooted()
{
    return GetRegistry().rooted;
}

std::vector<std::string>
CollectiveAlgorithm::GetNames()
{
    std::vector<std::string> names;
    for (const auto& a : GetRegistry().byKind)
    {
        if (a)
        {
            names.emplace_back(a->GetName());
        }
    }
    return names;
}

const char*
AlgoKindName(AlgoKind k)
{
    if (k == AlgoKind::CUSTOM)
    {
        return "custom";
    }
    const CollectiveAlgorithm* a = CollectiveAlgorithm::Get(k);
    return a ? a->GetName() : "?";
}

AlgoSpec
AlgoSpec::Parse(const std::string& nameIn)
{
    AlgoSpec s;
    std::string name = nameIn;
    // "one" + a capitalised name: every dimension flattened into one
    if (name.size() > 3 && name.compare(0, 3, "one") == 0 &&
        std::isupper(static_cast<unsigned char>(name[3])))
    {
        s.flattened = true;
        name =
            std::string(1, static_cast<char>(std::tolower(static_cast<unsigned char>(name[3])))) +
            name.substr(4);
    }
    std::vector<std::string> known;
    std::string expected;
    for (const auto& a : GetRegistry().byKind)
    {
        if (!a)
        {
            continue;
        }
        if (a->ParseName(name, nameIn, s) && (!s.flattened || a->CanFlatten()))
        {
            return s;
        }
        std::string n = a->GetName();
        known.push_back(n);
        expected += n + ", ";
        if (a->CanFlatten())
        {
            known.push_back("one" + std::string(1, static_cast<char>(std::toupper(n[0]))) +
                            n.substr(1));
        }
    }
    throw ConfigError("unknown algorithm '" + nameIn + "' (expected " + expected +
                      "directN, or a 'one' variant flattening every dimension, e.g. oneRing)" +
                      DidYouMean(nameIn, known));
}

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

bool
IsRootedOp(PhaseOp op)
{
    return op == PhaseOp::REDUCE || op == PhaseOp::GATHER || op == PhaseOp::SCATTER ||
           op == PhaseOp::BROADCAST || op == PhaseOp::BARRIER;
}

uint64_t
PhaseOutputBytes(PhaseOp op, uint32_t n, uint64_t bytes)
{
    switch (op)
    {
    case PhaseOp::REDUCE_SCATTER:
        return std::max<uint64_t>(1, bytes / n);
    case PhaseOp::ALL_GATHER:
    case PhaseOp::GATHER: // the root's (the only member that goes on)
        return bytes * n;
    case PhaseOp::SCATTER: // each member's share
        return std::max<uint64_t>(1, bytes / n);
    default:
        return bytes;
    }
}

} // namespace astra
} // namespace ns3
