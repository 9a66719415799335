/*
 * Algorithm names of the system parameters (system-params.h): the one parser
 * of ASTRA-sim's *-implementation entries.
 */

#include "system-params.h"

#include "ns3/astra-input.h"

#include <cctype>

namespace ns3
{
namespace astra
{

namespace
{

/// The names of the *-implementation lists, for suggestions.
const std::vector<std::string> kAlgoNames = {"ring",
                                             "direct",
                                             "halvingDoubling",
                                             "doubleBinaryTree",
                                             "oneRing",
                                             "oneDirect",
                                             "oneHalvingDoubling"};

[[noreturn]] void
Unknown(const std::string& name)
{
    throw ConfigError("unknown algorithm '" + name +
                      "' (expected ring, direct, directN, halvingDoubling, doubleBinaryTree, "
                      "oneRing, oneDirect, oneDirectN or oneHalvingDoubling)" +
                      DidYouMean(name, kAlgoNames));
}

} // namespace

const char*
AlgoKindName(AlgoKind k)
{
    switch (k)
    {
    case AlgoKind::RING:
        return "ring";
    case AlgoKind::DIRECT:
        return "direct";
    case AlgoKind::HALVING_DOUBLING:
        return "halvingDoubling";
    case AlgoKind::DOUBLE_BINARY_TREE:
        return "doubleBinaryTree";
    case AlgoKind::CUSTOM:
        return "custom";
    }
    return "?";
}

AlgoSpec
AlgoSpec::Parse(const std::string& name)
{
    AlgoSpec a;
    std::string n = name;
    // "one" + a capitalised name: every dimension flattened into one
    if (n.size() > 3 && n.compare(0, 3, "one") == 0 &&
        std::isupper(static_cast<unsigned char>(n[3])))
    {
        a.flattened = true;
        n = std::string(1, static_cast<char>(std::tolower(static_cast<unsigned char>(n[3])))) +
            n.substr(4);
    }
    if (n == "ring")
    {
        a.kind = AlgoKind::RING;
    }
    else if (n == "direct")
    {
        a.kind = AlgoKind::DIRECT;
    }
    else if (n == "halvingDoubling")
    {
        a.kind = AlgoKind::HALVING_DOUBLING;
    }
    else if (n == "doubleBinaryTree" && !a.flattened)
    {
        a.kind = AlgoKind::DOUBLE_BINARY_TREE;
    }
    else if (n.size() > 6 && n.compare(0, 6, "direct") == 0 &&
             n.find_first_not_of("0123456789", 6) == std::string::npos)
    {
        a.kind = AlgoKind::DIRECT;
        if (n.size() > 6 + 9)
        {
            throw ConfigError("algorithm '" + name + "': window must be at most 999999999");
        }
        a.window = static_cast<uint32_t>(std::stoul(n.substr(6)));
        if (a.window == 0)
        {
            throw ConfigError("algorithm '" + name + "': window must be > 0");
        }
    }
    else
    {
        Unknown(name);
    }
    return a;
}

} // namespace astra
} // namespace ns3
