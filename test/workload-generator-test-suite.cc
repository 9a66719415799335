/*
 * Tests of the shared pieces every executor and example uses (suite
 * "astra-sim-workload-generator"): the one collective-workload generator,
 * the one dependency table, and a scenario's clean state for the next one.
 */

#include "ns3/astra-sim-helper.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/test.h"
#include "ns3/workload-generator.h"

#include <functional>
#include <iostream>

using namespace ns3;
using namespace ns3::astra;

namespace
{

std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const std::exception& e)
    {
        return e.what();
    }
    return "";
}

std::shared_ptr<const Topology>
Ring(uint32_t n)
{
    return std::make_shared<Topology>(Topology::FromDimensions({{DimType::RING, n, 50, 500}}));
}

} // namespace

/// One generator: every NPU, a named group, members, names, bad members.
class GeneratorTestCase : public TestCase
{
  public:
    GeneratorTestCase()
        : TestCase("collective workload generator: all NPUs, a group's members, errors")
    {
    }

  private:
    void DoRun() override
    {
        auto all = MakeCollectiveWorkload(4, CollType::ALL_GATHER, 4096);
        NS_TEST_ASSERT_MSG_EQ(all.size(), 4, "one graph per NPU");
        for (uint32_t r = 0; r < 4; ++r)
        {
            NS_TEST_ASSERT_MSG_EQ(all[r]->nodes.size(), 1, "one node");
            const WorkloadNode& n = all[r]->nodes[0];
            NS_TEST_EXPECT_MSG_EQ(all[r]->rank, r, "rank");
            NS_TEST_EXPECT_MSG_EQ((n.kind == NodeKind::COMM_COLL), true, "COMM_COLL");
            NS_TEST_EXPECT_MSG_EQ((n.collType == CollType::ALL_GATHER), true, "type");
            NS_TEST_EXPECT_MSG_EQ(n.commSize, 4096, "bytes");
            NS_TEST_EXPECT_MSG_EQ(n.pgName, "", "all NPUs");
            NS_TEST_EXPECT_MSG_EQ(n.name, "ALL_GATHER 4096 B", "default name");
            NS_TEST_EXPECT_MSG_NE(all[r]->Find(1), nullptr, "indexed");
        }
        // the helper's static is the same generator, with the group argument
        auto helper = AstraSimHelper::MakeCollectiveWorkload(2, CollType::ALL_REDUCE, 8, "7");
        NS_TEST_EXPECT_MSG_EQ(helper[1]->nodes[0].pgName, "7", "group through the helper");

        CollectiveWorkload c;
        c.type = CollType::ALL_REDUCE;
        c.bytes = 1 << 20;
        c.group = "5";
        c.members = {1, 3};
        c.name = "ar";
        auto part = MakeCollectiveWorkload(4, c);
        NS_TEST_EXPECT_MSG_EQ(part[0]->nodes.size(), 0, "non-member 0: empty graph");
        NS_TEST_EXPECT_MSG_EQ(part[2]->nodes.size(), 0, "non-member 2: empty graph");
        NS_TEST_ASSERT_MSG_EQ(part[3]->nodes.size(), 1, "member 3");
        NS_TEST_EXPECT_MSG_EQ(part[3]->nodes[0].pgName, "5", "group");
        NS_TEST_EXPECT_MSG_EQ(part[3]->nodes[0].name, "ar", "name");

        // the group's collective runs: members take the 2-NPU all-reduce's time, others 0
        AstraRunOptions o;
        o.commGroups = {{"5", {1, 3}}};
        AstraRunResult r = AstraSimHelper::Run(Ring(4), SystemParams(), part, o);
        NS_TEST_EXPECT_MSG_EQ(r.error, "", "no error");
        NS_TEST_EXPECT_MSG_EQ(r.unfinished.size(), 0, "all finish");
        NS_TEST_EXPECT_MSG_EQ(r.finishNs[0], 0, "non-member idle");
        NS_TEST_EXPECT_MSG_GT(r.finishNs[1], 0, "member busy");
        NS_TEST_EXPECT_MSG_EQ(r.finishNs[1], r.finishNs[3], "both members");

        c.members = {1, 4};
        NS_TEST_EXPECT_MSG_NE(ErrorOf([&]() {
                                  MakeCollectiveWorkload(4, c);
                              }).find("member NPU 4 out of range (4 NPUs)"),
                              std::string::npos,
                              "member out of range");
        c.members = {1, 1};
        NS_TEST_EXPECT_MSG_NE(ErrorOf([&]() { MakeCollectiveWorkload(4, c); }).find("listed twice"),
                              std::string::npos,
                              "member twice");
    }
};

/// One dependency table: positions, compressed children, dangling deps.
class DependencyTableTestCase : public TestCase
{
  public:
    DependencyTableTestCase()
        : TestCase("dependency table: pending counts, children in order, dangling deps listed")
    {
    }

  private:
    void DoRun() override
    {
        WorkloadGraph g;
        g.file = "deps";
        auto add = [&](uint64_t id, std::vector<uint64_t> data, std::vector<uint64_t> ctrl) {
            WorkloadNode n;
            n.id = id;
            n.kind = NodeKind::COMP;
            n.dataDeps = data;
            n.ctrlDeps = ctrl;
            g.nodes.push_back(n);
        };
        add(10, {}, {});
        add(20, {10}, {});
        add(30, {10}, {20});
        add(40, {30, 10}, {99});
        g.BuildIndex();
        const DependencyTable t = DependencyTable::Build(g);
        NS_TEST_EXPECT_MSG_EQ((t.pending == std::vector<uint32_t>{0, 1, 2, 2}), true, "pending");
        NS_TEST_EXPECT_MSG_EQ((t.childStart == std::vector<uint32_t>{0, 3, 4, 5, 5}),
                              true,
                              "offsets");
        NS_TEST_EXPECT_MSG_EQ((t.children == std::vector<uint32_t>{1, 2, 3, 2, 3}),
                              true,
                              "children of 10: 20, 30, 40; of 20: 30; of 30: 40");
        NS_TEST_ASSERT_MSG_EQ(t.dangling.size(), 1, "one dangling dep");
        NS_TEST_EXPECT_MSG_EQ(t.dangling[0].node, 3, "of node 40");
        NS_TEST_EXPECT_MSG_EQ(t.dangling[0].dep, 99, "naming 99");
        NS_TEST_EXPECT_MSG_EQ(t.dangling[0].ctrl, true, "a control dep");
        // the topological order runs on the same table
        g.nodes[3].ctrlDeps.clear();
        NS_TEST_EXPECT_MSG_EQ((g.TopologicalOrder() == std::vector<uint64_t>{10, 20, 30, 40}),
                              true,
                              "order");
        g.nodes[0].dataDeps = {40};
        NS_TEST_EXPECT_MSG_NE(ErrorOf([&]() { g.TopologicalOrder(); }).find("dependency cycle"),
                              std::string::npos,
                              "cycle");
    }
};

/// A scenario leaves nothing behind: a second one in the process gives the same results and
/// counts its own warnings only.
class ScenarioTwiceTestCase : public TestCase
{
  public:
    ScenarioTwiceTestCase()
        : TestCase("two scenarios in one process: same results, warnings reset by Destroy")
    {
    }

  private:
    /// graphs whose nodes carry a dangling control dep (dropped with a warning)
    static std::vector<std::shared_ptr<const WorkloadGraph>> Graphs()
    {
        std::vector<std::shared_ptr<const WorkloadGraph>> gs;
        for (const auto& base : MakeCollectiveWorkload(4, CollType::ALL_REDUCE, 1 << 16))
        {
            auto g = std::make_shared<WorkloadGraph>(*base);
            g->nodes[0].ctrlDeps = {77};
            gs.push_back(g);
        }
        return gs;
    }

    std::vector<int64_t> RunOnce(uint64_t& warnings)
    {
        AstraSimScenario sc;
        sc.SetTopology(Ring(4));
        sc.SetSystemParams(SystemParams());
        sc.SetWorkloads(Graphs());
        sc.SetAppAttribute("DropDanglingCtrlDeps", BooleanValue(true));
        sc.GetMonitor()->SetAttribute("ProgressInterval", DoubleValue(0));
        sc.Build();
        NS_TEST_EXPECT_MSG_EQ(sc.Run(), 0, "status");
        warnings = Warnings::GetCount("dangling-dependencies-dropped");
        std::vector<int64_t> finish;
        for (const auto& a : sc.GetApps())
        {
            finish.push_back(a->GetStats().finish.GetNanoSeconds());
        }
        sc.Destroy();
        NS_TEST_EXPECT_MSG_EQ(Warnings::GetTotal(), 0, "Destroy resets the warnings");
        return finish;
    }

    void DoRun() override
    {
        Warnings::SetStream(nullptr);
        Warnings::Reset();
        uint64_t first = 0;
        uint64_t second = 0;
        const auto a = RunOnce(first);
        const auto b = RunOnce(second);
        NS_TEST_EXPECT_MSG_EQ(first, 4, "one dropped-deps warning per NPU");
        NS_TEST_EXPECT_MSG_EQ(second, 4, "the second scenario counts only its own");
        NS_TEST_EXPECT_MSG_EQ((a == b), true, "same finish times");
        NS_TEST_EXPECT_MSG_GT(a[0], 0, "the collective took time");
        Warnings::SetStream(&std::cerr);
    }
};

/// Suite "astra-sim-workload-generator".
class WorkloadGeneratorTestSuite : public TestSuite
{
  public:
    WorkloadGeneratorTestSuite()
        : TestSuite("astra-sim-workload-generator", UNIT)
    {
        AddTestCase(new GeneratorTestCase, TestCase::QUICK);
        AddTestCase(new DependencyTableTestCase, TestCase::QUICK);
        AddTestCase(new ScenarioTwiceTestCase, TestCase::QUICK);
    }
};

static WorkloadGeneratorTestSuite g_workloadGeneratorTestSuite; //!< registration
