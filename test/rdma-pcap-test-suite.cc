/*
 * Pcap written by RdmaNetDevice::EnablePcap is decoded by tshark as RoCEv2
 * (InfiniBand BTH over UDP 4791) and 802.1Qbb PFC (MAC control): opcodes, PSNs
 * (incl. the 24-bit wrap), the CE mark set by RoceFrame::SetCe, the PFC class
 * 3 pause time and resume. tshark must be installed: the test FAILS if not.
 *
 * Wireshark 4.0 registers the InfiniBand dissector on UDP port 4791 by default
 * (`tshark -G decodes` lists "udp.port 4791 infiniband"), so no "-d" option is used.
 */

#include "ns3/node.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-net-device.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

RdmaMeta
Meta(uint8_t opcode, uint32_t psn, uint32_t payload)
{
    RdmaMeta m;
    m.opcode = opcode;
    m.psn = psn;
    m.payload = payload;
    m.priority = 3;
    m.ecn = 2;
    m.srcIp = 0x0A000001;
    m.dstIp = 0x0A000002;
    m.sport = 49152 + psn % 1000;
    m.destQp = 17;
    m.rethLen = 3000;
    return m;
}

/// Run a command, return its stdout lines; exit status in status.
std::vector<std::string>
RunCommand(const std::string& cmd, int& status)
{
    std::vector<std::string> lines;
    FILE* f = popen(cmd.c_str(), "r");
    if (!f)
    {
        status = -1;
        return lines;
    }
    char buf[4096];
    std::string cur;
    while (fgets(buf, sizeof(buf), f))
    {
        cur = buf;
        while (!cur.empty() && (cur.back() == '\n' || cur.back() == '\r'))
        {
            cur.pop_back();
        }
        lines.push_back(cur);
    }
    status = pclose(f);
    return lines;
}

std::vector<std::string>
Split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    std::istringstream is(s);
    while (std::getline(is, cur, sep))
    {
        out.push_back(cur);
    }
    if (!s.empty() && s.back() == sep)
    {
        out.push_back("");
    }
    return out;
}

} // namespace

/// Write a pcap from a short run and decode it with tshark.
class RdmaPcapTsharkTestCase : public TestCase
{
  public:
    RdmaPcapTsharkTestCase()
        : TestCase("pcap of WRITE, READ, ACK, CNP, CE and PFC frames decodes in tshark")
    {
    }

  private:
    void DoRun() override
    {
        int status = 0;
        RunCommand("command -v tshark", status);
        NS_TEST_ASSERT_MSG_EQ(status,
                              0,
                              "tshark not found in PATH: install the Debian package 'tshark' "
                              "(this test must not be skipped)");

        Ptr<RdmaNetDevice> a = CreateObject<RdmaNetDevice>();
        Ptr<RdmaNetDevice> b = CreateObject<RdmaNetDevice>();
        a->SetAttribute("DataRate", StringValue("100Gbps"));
        b->SetAttribute("DataRate", StringValue("100Gbps"));
        a->SetPortIndex(1);
        b->SetPortIndex(2);
        Ptr<RdmaChannel> ch = CreateObject<RdmaChannel>();
        ch->SetDelay(MicroSeconds(1));
        a->Attach(ch);
        b->Attach(ch);
        uint32_t bRx = 0;
        b->SetRxHandler(MakeBoundCallback(
            +[](uint32_t* n, Ptr<RdmaNetDevice>, RdmaQueuedFrame&) { ++*n; },
            &bRx));
        a->SetRxHandler(MakeBoundCallback(
            +[](uint32_t* n, Ptr<RdmaNetDevice>, RdmaQueuedFrame&) { ++*n; },
            &bRx));

        const std::string file = CreateTempDirFilename("rdma-pcap-test.pcap");
        Ptr<PcapFileWrapper> pcap = RdmaNetDevice::EnablePcap(file, a, true);

        // a -> b: a 3-packet WRITE crossing the PSN wrap, a CE-marked WRITE ONLY, a READ req.
        const uint8_t ops[] = {RoceOpcode::WRITE_FIRST,
                               RoceOpcode::WRITE_MIDDLE,
                               RoceOpcode::WRITE_LAST,
                               RoceOpcode::WRITE_ONLY,
                               RoceOpcode::READ_REQUEST};
        const uint32_t psns[] = {0xFFFFFE, 0xFFFFFF, 0x000000, 0x000001, 0x000002};
        for (int k = 0; k < 5; ++k)
        {
            RdmaQueuedFrame f;
            f.meta = Meta(ops[k], psns[k], ops[k] == RoceOpcode::READ_REQUEST ? 0 : 1000);
            f.packet = RoceFrame::Build(f.meta);
            if (ops[k] == RoceOpcode::WRITE_ONLY)
            {
                RoceFrame::SetCe(f.packet, f.meta);
            }
            a->EnqueueFrame(std::move(f));
        }
        // b -> a: ACK (MSN 2), CNP, PFC pause of priority 3, PFC resume.
        Simulator::Schedule(MicroSeconds(10), [b]() {
            RdmaQueuedFrame f;
            f.meta = Meta(RoceOpcode::ACK, 0x000001, 0);
            f.meta.priority = 7;
            f.meta.msn = 2;
            f.packet = RoceFrame::Build(f.meta);
            b->EnqueueFrame(std::move(f));
            RdmaQueuedFrame c;
            c.meta = Meta(RoceOpcode::CNP, 0, 0);
            c.meta.priority = 7;
            c.packet = RoceFrame::Build(c.meta);
            b->EnqueueFrame(std::move(c));
        });
        Simulator::Schedule(MicroSeconds(12), [b]() { b->SendPfc(3, 0xFFFF); });
        Simulator::Schedule(MicroSeconds(13), [b]() { b->SendPfc(3, 0); });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(bRx, 7u, "5 frames at b + ACK and CNP at a");
        // PFC frames sent 1 us apart; their serialization differs by 1 ns (rate carry).
        NS_TEST_ASSERT_MSG_EQ_TOL((a->GetPauseTime(3)),
                                  (MicroSeconds(1)),
                                  (NanoSeconds(2)),
                                  "paused about 1 us by PFC");
        pcap->Close();
        Simulator::Destroy();
        a->Dispose();
        b->Dispose();
        ch->Dispose();

        const std::string cmd =
            "tshark -r '" + file +
            "' -T fields -E separator=';' -e frame.protocols -e infiniband.bth.opcode"
            " -e infiniband.bth.psn -e ip.dsfield.ecn -e vlan.priority -e udp.dstport"
            " -e infiniband.reth.dmalen -e infiniband.aeth.msn -e macc.opcode"
            " -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 2>/dev/null";
        std::vector<std::string> lines = RunCommand(cmd, status);
        NS_TEST_ASSERT_MSG_EQ(status, 0, "tshark exit status for " << cmd);
        std::ostringstream all;
        for (const auto& l : lines)
        {
            all << "\n  " << l;
        }
        NS_TEST_ASSERT_MSG_EQ((lines.size()), 9u, "frames in the pcap:" << all.str());

        struct Expect
        {
            const char* opcode;
            const char* psn;
            const char* ecn;
        };

        // tshark prints the BTH opcode and PSN in decimal, ECN as 0..3.
        const Expect roce[] = {{"6", "16777214", "2"},
                               {"7", "16777215", "2"},
                               {"8", "0", "2"},
                               {"10", "1", "3"}, // CE set by RoceFrame::SetCe
                               {"12", "2", "2"},
                               {"17", "1", "2"},   // ACK
                               {"129", "0", "2"}}; // CNP
        for (int k = 0; k < 7; ++k)
        {
            std::vector<std::string> f = Split(lines[k], ';');
            NS_TEST_ASSERT_MSG_EQ((f.size()), 11u, "fields of line " << k << all.str());
            NS_TEST_ASSERT_MSG_EQ(
                (f[0].find("vlan:ethertype:ip:udp:infiniband") != std::string::npos),
                true,
                "RoCEv2 protocol stack at line " << k << ": " << f[0]);
            NS_TEST_ASSERT_MSG_EQ(f[1], roce[k].opcode, "BTH opcode at line " << k);
            NS_TEST_ASSERT_MSG_EQ(f[2], roce[k].psn, "BTH PSN at line " << k);
            NS_TEST_ASSERT_MSG_EQ(f[3], roce[k].ecn, "ECN at line " << k);
            NS_TEST_ASSERT_MSG_EQ(f[5], "4791", "UDP dst port at line " << k);
        }
        NS_TEST_ASSERT_MSG_EQ(Split(lines[0], ';')[6], "3000", "RETH DMA length (WRITE First)");
        NS_TEST_ASSERT_MSG_EQ(Split(lines[4], ';')[6], "3000", "RETH DMA length (READ req)");
        NS_TEST_ASSERT_MSG_EQ(Split(lines[1], ';')[6], "", "no RETH on WRITE Middle");
        NS_TEST_ASSERT_MSG_EQ(Split(lines[5], ';')[7], "2", "AETH MSN of the ACK");
        NS_TEST_ASSERT_MSG_EQ(Split(lines[0], ';')[4], "3", "802.1Q PCP");
        NS_TEST_ASSERT_MSG_EQ(Split(lines[5], ';')[4], "7", "802.1Q PCP of the ACK");
        for (int k = 7; k < 9; ++k)
        {
            std::vector<std::string> f = Split(lines[k], ';');
            NS_TEST_ASSERT_MSG_EQ((f.size()), 11u, "fields of PFC line " << k << all.str());
            NS_TEST_ASSERT_MSG_EQ((f[0].find("macc") != std::string::npos),
                                  true,
                                  "MAC control frame at line " << k << ": " << f[0]);
            NS_TEST_ASSERT_MSG_EQ(f[8], "0x0101", "PFC opcode at line " << k);
            NS_TEST_ASSERT_MSG_EQ(f[9], "0x0008", "class-enable vector (class 3)");
        }
        NS_TEST_ASSERT_MSG_EQ(Split(lines[7], ';')[10], "65535", "pause quanta class 3");
        NS_TEST_ASSERT_MSG_EQ(Split(lines[8], ';')[10], "0", "resume (quanta 0)");
    }
};

/// RdmaPcapHelper: ns-3's EnablePcapAll writes prefix-NODE-IFINDEX.pcap per device.
class RdmaPcapHelperTestCase : public TestCase
{
  public:
    RdmaPcapHelperTestCase()
        : TestCase("RdmaPcapHelper EnablePcapAll writes one decodable file per device")
    {
    }

  private:
    void DoRun() override
    {
        int status = 0;
        RunCommand("command -v tshark", status);
        NS_TEST_ASSERT_MSG_EQ(status, 0, "tshark not found in PATH: install package 'tshark'");
        Ptr<Node> n0 = CreateObject<Node>();
        Ptr<Node> n1 = CreateObject<Node>();
        Ptr<RdmaNetDevice> a = CreateObject<RdmaNetDevice>();
        Ptr<RdmaNetDevice> b = CreateObject<RdmaNetDevice>();
        n0->AddDevice(a);
        n1->AddDevice(b);
        Ptr<RdmaChannel> ch = CreateObject<RdmaChannel>();
        a->Attach(ch);
        b->Attach(ch);
        b->SetRxHandler(MakeCallback(+[](Ptr<RdmaNetDevice>, RdmaQueuedFrame&) { /* consume */ }));
        const std::string prefix = CreateTempDirFilename("rdma-helper");
        RdmaPcapHelper helper;
        helper.EnablePcapAll(prefix);
        for (uint32_t k = 0; k < 3; ++k)
        {
            RdmaQueuedFrame f;
            f.meta = Meta(RoceOpcode::SEND_ONLY, 40 + k, 64);
            f.packet = RoceFrame::Build(f.meta);
            a->EnqueueFrame(std::move(f));
        }
        Simulator::Run();
        Simulator::Destroy(); // disposes nodes, devices and channels: files are closed
        for (const auto& [node, dev] : {std::pair<uint32_t, uint32_t>{n0->GetId(), 0},
                                        std::pair<uint32_t, uint32_t>{n1->GetId(), 0}})
        {
            std::ostringstream fn;
            fn << prefix << "-" << node << "-" << dev << ".pcap";
            std::vector<std::string> lines =
                RunCommand("tshark -r '" + fn.str() +
                               "' -T fields -e infiniband.bth.opcode -e infiniband.bth.psn "
                               "2>/dev/null",
                           status);
            NS_TEST_ASSERT_MSG_EQ(status, 0, "tshark on " << fn.str());
            NS_TEST_ASSERT_MSG_EQ((lines.size()), 3u, "frames in " << fn.str());
            for (uint32_t k = 0; k < lines.size(); ++k)
            {
                std::ostringstream want;
                want << "4\t" << 40 + k;
                NS_TEST_ASSERT_MSG_EQ(lines[k], want.str(), "SEND ONLY and PSN in " << fn.str());
            }
        }
    }
};

/// Pcap/tshark test suite.
class RdmaPcapTestSuite : public TestSuite
{
  public:
    RdmaPcapTestSuite()
        : TestSuite("astra-sim-rdma-pcap", UNIT)
    {
        AddTestCase(new RdmaPcapTsharkTestCase, TestCase::QUICK);
        AddTestCase(new RdmaPcapHelperTestCase, TestCase::QUICK);
    }
};

static RdmaPcapTestSuite g_rdmaPcapTestSuite; //!< registration
