/*
 * Chakra execution trace writer.
 */

#include "et-writer.h"

#include "chakra.pb.h"

#include "ns3/log.h"

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <fstream>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AstraEtWriter");

namespace astra
{

namespace
{

using ChakraProtoMsg::AttributeProto;

void
AppendDelimited(std::string& out, const google::protobuf::MessageLite& m)
{
    std::string body;
    m.SerializeToString(&body);
    uint64_t len = body.size();
    do
    {
        uint8_t c = len & 0x7f;
        len >>= 7;
        if (len != 0)
        {
            c |= 0x80;
        }
        out.push_back(static_cast<char>(c));
    } while (len != 0);
    out += body;
}

AttributeProto*
Add(ChakraProtoMsg::Node& n, const std::string& name)
{
    AttributeProto* a = n.add_attr();
    a->set_name(name);
    return a;
}

} // namespace

std::string
SerializeChakra(const WorkloadGraph& g, const ChakraWriteOptions& opts)
{
    std::string out;
    if (!opts.legacy)
    {
        ChakraProtoMsg::GlobalMetadata md;
        md.set_version(g.version.empty() ? opts.version : g.version);
        AttributeProto* s = md.add_attr();
        s->set_name("schema");
        s->set_string_val("astra-sim-ns3");
        for (const auto& [name, ranks] : g.commGroups)
        {
            AttributeProto* a = md.add_attr();
            a->set_name("comm_group:" + name);
            for (uint32_t r : ranks)
            {
                a->mutable_int64_list()->add_values(r);
            }
        }
        AppendDelimited(out, md);
    }
    ChakraProtoMsg::Node pn;
    for (const auto& n : g.nodes)
    {
        pn.Clear();
        pn.set_id(n.id);
        pn.set_name(n.name);
        pn.set_type(static_cast<ChakraProtoMsg::NodeType>(n.kind));
        for (uint64_t d : n.ctrlDeps)
        {
            pn.add_ctrl_deps(d);
        }
        for (uint64_t d : n.dataDeps)
        {
            if (opts.legacy)
            {
                pn.add_ctrl_deps(d);
            }
            else
            {
                pn.add_data_deps(d);
            }
        }
        pn.set_duration_micros(n.durationMicros);
        const bool sendRecv = n.kind == NodeKind::COMM_SEND || n.kind == NodeKind::COMM_RECV;
        if (n.kind == NodeKind::COMM_COLL)
        {
            Add(pn, "comm_type")->set_int64_val(static_cast<int64_t>(n.collType));
        }
        if (n.kind == NodeKind::COMM_COLL || sendRecv || n.commSize != 0)
        {
            Add(pn, "comm_size")->set_int64_val(static_cast<int64_t>(n.commSize));
        }
        if (sendRecv || n.commSrc != -1)
        {
            Add(pn, "comm_src")->set_int32_val(n.commSrc);
        }
        if (sendRecv || n.commDst != -1)
        {
            Add(pn, "comm_dst")->set_int32_val(n.commDst);
        }
        if (sendRecv || n.commTag != 0)
        {
            Add(pn, "comm_tag")->set_int64_val(n.commTag);
        }
        if (n.commPriority != 0)
        {
            Add(pn, "comm_priority")->set_int32_val(n.commPriority);
        }
        if (!n.pgName.empty())
        {
            Add(pn, "pg_name")->set_string_val(n.pgName);
        }
        if (!n.involvedDim.empty())
        {
            auto* l = Add(pn, "involved_dim")->mutable_bool_list();
            for (bool b : n.involvedDim)
            {
                l->add_values(b);
            }
        }
        if (n.hasNumOps)
        {
            Add(pn, "num_ops")->set_uint64_val(n.numOps);
        }
        if (n.tensorSize != 0)
        {
            Add(pn, "tensor_size")->set_uint64_val(n.tensorSize);
        }
        if (n.kind == NodeKind::COMP || n.isCpuOp)
        {
            Add(pn, "is_cpu_op")->set_bool_val(n.isCpuOp);
        }
        if (!n.opType.empty())
        {
            Add(pn, "op_type")->set_string_val(n.opType);
        }
        if (n.durationNs != 0)
        {
            Add(pn, "duration_ns")->set_uint64_val(n.durationNs);
        }
        AppendDelimited(out, pn);
    }
    if (opts.gzip)
    {
        namespace io = boost::iostreams;
        std::istringstream in(out, std::ios::binary);
        io::filtering_istreambuf buf;
        buf.push(io::gzip_compressor());
        buf.push(in);
        std::ostringstream z(std::ios::binary);
        io::copy(buf, z);
        return z.str();
    }
    return out;
}

void
WriteChakraFile(const WorkloadGraph& g, const std::string& path, const ChakraWriteOptions& opts)
{
    std::string bytes = SerializeChakra(g, opts);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f)
    {
        throw WorkloadError(path + ": cannot open for writing");
    }
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f)
    {
        throw WorkloadError(path + ": write error");
    }
    NS_LOG_INFO("wrote " << path << " (" << g.nodes.size() << " nodes, " << bytes.size()
                         << " bytes)");
}

void
WriteChakraPrefix(const std::vector<WorkloadGraph>& graphs,
                  const std::string& prefix,
                  const ChakraWriteOptions& opts)
{
    for (size_t r = 0; r < graphs.size(); ++r)
    {
        WriteChakraFile(graphs[r], prefix + "." + std::to_string(r) + ".et", opts);
    }
}

} // namespace astra
} // namespace ns3
