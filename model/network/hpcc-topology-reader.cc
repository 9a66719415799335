/*
 * The network files users of the reference's ns-3 backend bring
 * (hpcc-topology-reader.h).
 */

#include "hpcc-topology-reader.h"

#include "ns3/astra-command-line.h"
#include "ns3/astra-input.h"
#include "ns3/astra-limits.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/roce-config-reader.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{
namespace astra
{

namespace
{

/// One link of the file.
struct HpccLink
{
    uint32_t a;     //!< one end
    uint32_t b;     //!< other end
    uint64_t bps;   //!< rate
    double delayNs; //!< delay
    uint32_t line;  //!< line number
};

/// \return whether a regular file exists at path
bool
IsFile(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// \return the same rate on every link of \p links (or the first link that differs)
bool
Uniform(const std::vector<const HpccLink*>& links, const HpccLink** odd)
{
    for (const HpccLink* l : links)
    {
        if (l->bps != links.front()->bps || l->delayNs != links.front()->delayNs)
        {
            *odd = l;
            return false;
        }
    }
    return true;
}

} // namespace

bool
IsHpccConfigFile(const std::string& path)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    {
        return false;
    }
    std::istringstream in(ReadInputFile(path, "network configuration"));
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream ls(line);
        std::string key;
        if (!(ls >> key) || key[0] == '#')
        {
            continue;
        }
        return line.find(':') == std::string::npos && line.find('{') == std::string::npos &&
               RoceConfigReader::IsHpccKey(key);
    }
    return false;
}

std::string
HpccTopologyFileOf(const std::string& configPath)
{
    std::istringstream in(ReadInputFile(configPath, "network configuration"));
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream ls(line);
        std::string key;
        std::string value;
        if (!(ls >> key) || key != "TOPOLOGY_FILE")
        {
            continue;
        }
        if (!(ls >> value))
        {
            throw ConfigError(configPath + ": TOPOLOGY_FILE has no value");
        }
        if (IsFile(value))
        {
            return value;
        }
        const size_t slash = configPath.find_last_of('/');
        const std::string beside =
            (slash == std::string::npos ? std::string(".") : configPath.substr(0, slash)) + "/" +
            value;
        if (value[0] != '/' && IsFile(beside))
        {
            return beside;
        }
        throw ConfigError(configPath + ": TOPOLOGY_FILE '" + value +
                          "' not found (looked as given and next to the file)");
    }
    return "";
}

Topology
ReadHpccTopology(const std::string& path)
{
    std::istringstream in(ReadInputFile(path, "topology file"));
    std::string line;
    uint32_t lineNo = 0;
    auto fail = [&](const std::string& what) {
        throw ConfigError(path + ": line " + std::to_string(lineNo) + ": " + what);
    };
    auto next = [&](std::istringstream& ls) {
        while (std::getline(in, line))
        {
            ++lineNo;
            const size_t hash = line.find('#');
            if (line.find_first_not_of(" \t\r", 0) == std::string::npos || hash == 0)
            {
                continue;
            }
            ls.clear();
            ls.str(line);
            return true;
        }
        return false;
    };
    auto count = [&](std::istringstream& ls, const char* what, uint64_t max) {
        std::string tok;
        if (!(ls >> tok) || tok.find_first_not_of("0123456789") != std::string::npos ||
            tok.size() > 12 || std::stoull(tok) > max)
        {
            fail(std::string("expected ") + what + " (an integer up to " + std::to_string(max) +
                 "), found '" + tok + "'");
        }
        return static_cast<uint32_t>(std::stoull(tok));
    };
    std::istringstream ls;
    if (!next(ls))
    {
        throw ConfigError(path + ": empty topology file (expected '<nodes> <switches> <links>')");
    }
    const uint32_t nodes = count(ls, "the node count", limits::kMaxNpus + limits::kMaxLinks);
    const uint32_t switches = count(ls, "the switch count", nodes);
    const uint32_t nlinks = count(ls, "the link count", limits::kMaxLinks);
    if (switches >= nodes)
    {
        fail("no NPU: " + std::to_string(switches) + " of the " + std::to_string(nodes) +
             " nodes are switches");
    }
    const uint32_t npus = nodes - switches;
    std::set<uint32_t> sw;
    if (switches > 0)
    {
        if (!next(ls))
        {
            fail("the line of switch ids is missing");
        }
        for (uint32_t i = 0; i < switches; ++i)
        {
            const uint32_t id = count(ls, "a switch id", nodes - 1);
            if (!sw.insert(id).second)
            {
                fail("switch " + std::to_string(id) + " listed twice");
            }
            if (id < npus)
            {
                fail("switch id " + std::to_string(id) + ": the NPUs are the node ids 0.." +
                     std::to_string(npus - 1) + " and the switches the ids after them");
            }
        }
    }
    std::vector<HpccLink> links;
    std::set<std::pair<uint32_t, uint32_t>> seen;
    const Ptr<const AttributeChecker> rateChecker = MakeDataRateChecker();
    const Ptr<const AttributeChecker> timeChecker = MakeTimeChecker();
    for (uint32_t i = 0; i < nlinks; ++i)
    {
        if (!next(ls))
        {
            throw ConfigError(path + ": the file declares " + std::to_string(nlinks) +
                              " links but has " + std::to_string(i));
        }
        HpccLink l;
        l.line = lineNo;
        l.a = count(ls, "a node id", nodes - 1);
        l.b = count(ls, "a node id", nodes - 1);
        std::string rate;
        std::string delay;
        std::string error;
        if (!(ls >> rate >> delay >> error))
        {
            fail("expected '<src> <dst> <rate> <delay> <error rate>'");
        }
        if (l.a == l.b)
        {
            fail("a link from node " + std::to_string(l.a) + " to itself");
        }
        if (!seen.insert({std::min(l.a, l.b), std::max(l.a, l.b)}).second)
        {
            fail("a second link between nodes " + std::to_string(l.a) + " and " +
                 std::to_string(l.b));
        }
        std::string err = CheckAttributeValueSyntax(rate, rateChecker);
        if (!err.empty())
        {
            fail("rate '" + rate + "' " + err);
        }
        err = CheckAttributeValueSyntax(delay, timeChecker);
        if (!err.empty())
        {
            fail("delay '" + delay + "' " + err);
        }
        l.bps = DataRate(rate).GetBitRate();
        l.delayNs = Time(delay).GetSeconds() * 1e9;
        if (l.bps == 0)
        {
            fail("a link rate of 0");
        }
        if (error != "0" && error.find_first_not_of("0.") != std::string::npos)
        {
            fail("error rate '" + error +
                 "': this module's links lose no frames (write 0; ReceiveErrorModel of "
                 "ns3::RdmaNetDevice models losses)");
        }
        links.push_back(l);
    }
    if (next(ls))
    {
        fail("more links than the " + std::to_string(nlinks) + " the first line declares");
    }

    auto isSwitch = [&](uint32_t v) { return sw.count(v) != 0; };
    std::vector<std::vector<const HpccLink*>> at(nodes);
    for (const auto& l : links)
    {
        at[l.a].push_back(&l);
        at[l.b].push_back(&l);
    }
    auto other = [](const HpccLink* l, uint32_t v) { return l->a == v ? l->b : l->a; };
    std::vector<const HpccLink*> hostLinks;
    std::vector<uint32_t> leafOf(npus);
    for (uint32_t h = 0; h < npus; ++h)
    {
        if (at[h].size() != 1 || !isSwitch(other(at[h][0], h)))
        {
            throw ConfigError(path + ": NPU " + std::to_string(h) + " has " +
                              std::to_string(at[h].size()) +
                              " link(s): only topologies whose NPUs hang off one switch each "
                              "(a single switch or a two-tier leaf-spine) map onto a dimension "
                              "here; describe other networks as a network YAML "
                              "(doc/topologies.rst)");
        }
        hostLinks.push_back(at[h][0]);
        leafOf[h] = other(at[h][0], h);
    }
    const HpccLink* odd = nullptr;
    if (!Uniform(hostLinks, &odd))
    {
        throw ConfigError(path + ": line " + std::to_string(odd->line) +
                          ": the NPU links differ in rate or delay (a dimension has one)");
    }
    const double hostGBps = GbpsToGBps(double(hostLinks.front()->bps) / 1e9);
    const double hostNs = hostLinks.front()->delayNs;
    std::set<uint32_t> leaves(leafOf.begin(), leafOf.end());
    std::vector<DimensionSpec> dims;
    if (leaves.size() == 1 && switches == 1)
    {
        dims.push_back(DimensionSpec{DimType::SWITCH, npus, hostGBps, hostNs});
    }
    else
    {
        // two tiers: leaves hold consecutive NPUs, every leaf links once to every spine
        const uint32_t perLeaf = npus / uint32_t(leaves.size());
        std::vector<uint32_t> leafList(leaves.begin(), leaves.end());
        std::set<uint32_t> spines;
        for (uint32_t s : sw)
        {
            if (!leaves.count(s))
            {
                spines.insert(s);
            }
        }
        std::vector<const HpccLink*> up;
        bool clos = npus % leaves.size() == 0 && !spines.empty();
        for (uint32_t h = 0; clos && h < npus; ++h)
        {
            // NPU h sits on the leaf of its block of perLeaf, and each block has its own leaf
            clos = leafOf[h] == leafOf[h / perLeaf * perLeaf] &&
                   (h % perLeaf != 0 || h == 0 || leafOf[h] != leafOf[h - 1]);
        }
        for (uint32_t leaf : leafList)
        {
            std::set<uint32_t> reached;
            for (const HpccLink* l : at[leaf])
            {
                const uint32_t o = other(l, leaf);
                if (o < npus)
                {
                    continue;
                }
                clos = clos && spines.count(o) != 0;
                reached.insert(o);
                up.push_back(l);
            }
            clos = clos && reached == spines;
        }
        for (uint32_t s : spines)
        {
            for (const HpccLink* l : at[s])
            {
                clos = clos && leaves.count(other(l, s)) != 0;
            }
        }
        if (!clos)
        {
            throw ConfigError(path + ": " + std::to_string(nodes) + " nodes, " +
                              std::to_string(switches) + " switches, " + std::to_string(nlinks) +
                              " links: not a single switch or a two-tier leaf-spine (consecutive "
                              "NPUs per leaf, every leaf on every spine), the shapes that map "
                              "onto a dimension here; describe it as a network YAML "
                              "(doc/topologies.rst)");
        }
        if (!Uniform(up, &odd))
        {
            throw ConfigError(path + ": line " + std::to_string(odd->line) +
                              ": the leaf-spine links differ in rate or delay");
        }
        dims.push_back(ClosDimension(npus,
                                     perLeaf,
                                     uint32_t(spines.size()),
                                     hostGBps,
                                     hostNs,
                                     GbpsToGBps(double(up.front()->bps) / 1e9),
                                     up.front()->delayNs));
    }
    Topology t;
    try
    {
        t = Topology::FromDimensions(dims);
    }
    catch (const std::invalid_argument& e)
    {
        throw ConfigError(path + ": " + e.what());
    }
    t.source = path;
    return t;
}

} // namespace astra
} // namespace ns3
