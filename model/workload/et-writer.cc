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
#include <string_view>
#include <zlib.h>

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

void
PutVarint(std::string& out, uint64_t v)
{
    char buf[10];
    int i = 0;
    while (v >= 0x80)
    {
        buf[i++] = static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    buf[i++] = static_cast<char>(v);
    out.append(buf, i);
}

uint64_t
VarintSize(uint64_t v)
{
    uint64_t n = 1;
    while (v >= 0x80)
    {
        v >>= 7;
        ++n;
    }
    return n;
}

void
PutKey(std::string& out, uint32_t field, uint32_t wireType)
{
    PutVarint(out, (static_cast<uint64_t>(field) << 3) | wireType);
}

void
PutBytes(std::string& out, uint32_t field, const char* data, size_t len)
{
    PutKey(out, field, 2);
    PutVarint(out, len);
    out.append(data, len);
}

void
CheckGzipLevel(int level)
{
    if (level < -1 || level > 9)
    {
        throw WorkloadError("gzip level " + std::to_string(level) +
                            " out of range (0 .. 9, or -1 for the default)");
    }
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
        out = SerializeChakraHeader(g.version.empty() ? opts.version : g.version, g.commGroups);
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
        CheckGzipLevel(opts.gzipLevel);
        namespace io = boost::iostreams;
        std::istringstream in(out, std::ios::binary);
        io::filtering_istreambuf buf;
        buf.push(io::gzip_compressor(io::gzip_params(opts.gzipLevel)));
        buf.push(in);
        std::ostringstream z(std::ios::binary);
        io::copy(buf, z);
        return z.str();
    }
    return out;
}

std::string
SerializeChakraHeader(const std::string& version,
                      const std::map<std::string, std::vector<uint32_t>>& commGroups)
{
    std::string out;
    ChakraProtoMsg::GlobalMetadata md;
    md.set_version(version);
    AttributeProto* s = md.add_attr();
    s->set_name("schema");
    s->set_string_val("astra-sim-ns3");
    for (const auto& [name, ranks] : commGroups)
    {
        AttributeProto* a = md.add_attr();
        a->set_name("comm_group:" + name);
        for (uint32_t r : ranks)
        {
            a->mutable_int64_list()->add_values(r);
        }
    }
    AppendDelimited(out, md);
    return out;
}

void
AppendChakraNode(std::string& out, const WorkloadNode& n, bool legacy)
{
    // Field numbers and attribute order as in SerializeChakra; proto3 rules: scalars
    // equal to 0 / empty are omitted, a oneof member is always written, repeated
    // numerics are packed, negative int32/int64 are 10-byte varints.
    thread_local std::string body;
    thread_local std::string attr;
    body.clear();
    if (n.id != 0)
    {
        PutKey(body, 1, 0);
        PutVarint(body, n.id);
    }
    if (!n.name.empty())
    {
        PutBytes(body, 2, n.name.data(), n.name.size());
    }
    if (n.kind != NodeKind::INVALID)
    {
        PutKey(body, 3, 0);
        PutVarint(body, static_cast<uint64_t>(n.kind));
    }
    const bool dataAsCtrl = legacy && !n.dataDeps.empty();
    if (!n.ctrlDeps.empty() || dataAsCtrl)
    {
        uint64_t len = 0;
        for (uint64_t d : n.ctrlDeps)
        {
            len += VarintSize(d);
        }
        if (legacy)
        {
            for (uint64_t d : n.dataDeps)
            {
                len += VarintSize(d);
            }
        }
        PutKey(body, 4, 2);
        PutVarint(body, len);
        for (uint64_t d : n.ctrlDeps)
        {
            PutVarint(body, d);
        }
        if (legacy)
        {
            for (uint64_t d : n.dataDeps)
            {
                PutVarint(body, d);
            }
        }
    }
    if (!legacy && !n.dataDeps.empty())
    {
        uint64_t len = 0;
        for (uint64_t d : n.dataDeps)
        {
            len += VarintSize(d);
        }
        PutKey(body, 5, 2);
        PutVarint(body, len);
        for (uint64_t d : n.dataDeps)
        {
            PutVarint(body, d);
        }
    }
    if (n.durationMicros != 0)
    {
        PutKey(body, 7, 0);
        PutVarint(body, n.durationMicros);
    }
    // attributes (field 10): name (1) then the oneof value
    auto intAttr = [&](std::string_view name, uint32_t field, uint64_t v) {
        attr.clear();
        PutBytes(attr, 1, name.data(), name.size());
        PutKey(attr, field, 0);
        PutVarint(attr, v);
        PutBytes(body, 10, attr.data(), attr.size());
    };
    auto strAttr = [&](std::string_view name, const std::string& v) {
        attr.clear();
        PutBytes(attr, 1, name.data(), name.size());
        PutBytes(attr, 29, v.data(), v.size());
        PutBytes(body, 10, attr.data(), attr.size());
    };
    const bool sendRecv = n.kind == NodeKind::COMM_SEND || n.kind == NodeKind::COMM_RECV;
    if (n.kind == NodeKind::COMM_COLL)
    {
        intAttr("comm_type", 9, static_cast<uint64_t>(n.collType));
    }
    if (n.kind == NodeKind::COMM_COLL || sendRecv || n.commSize != 0)
    {
        intAttr("comm_size", 9, n.commSize);
    }
    if (sendRecv || n.commSrc != -1)
    {
        intAttr("comm_src", 7, static_cast<uint64_t>(int64_t(n.commSrc)));
    }
    if (sendRecv || n.commDst != -1)
    {
        intAttr("comm_dst", 7, static_cast<uint64_t>(int64_t(n.commDst)));
    }
    if (sendRecv || n.commTag != 0)
    {
        intAttr("comm_tag", 9, static_cast<uint64_t>(n.commTag));
    }
    if (n.commPriority != 0)
    {
        intAttr("comm_priority", 7, static_cast<uint64_t>(int64_t(n.commPriority)));
    }
    if (!n.pgName.empty())
    {
        strAttr("pg_name", n.pgName);
    }
    if (!n.involvedDim.empty())
    {
        attr.clear();
        PutBytes(attr, 1, "involved_dim", 12);
        // BoolList: field 1, packed, one byte per value
        const uint64_t inner = 1 + VarintSize(n.involvedDim.size()) + n.involvedDim.size();
        PutKey(attr, 28, 2);
        PutVarint(attr, inner);
        PutKey(attr, 1, 2);
        PutVarint(attr, n.involvedDim.size());
        for (bool b : n.involvedDim)
        {
            attr.push_back(b ? 1 : 0);
        }
        PutBytes(body, 10, attr.data(), attr.size());
    }
    if (n.hasNumOps)
    {
        intAttr("num_ops", 13, n.numOps);
    }
    if (n.tensorSize != 0)
    {
        intAttr("tensor_size", 13, n.tensorSize);
    }
    if (n.kind == NodeKind::COMP || n.isCpuOp)
    {
        intAttr("is_cpu_op", 27, n.isCpuOp ? 1 : 0);
    }
    if (!n.opType.empty())
    {
        strAttr("op_type", n.opType);
    }
    if (n.durationNs != 0)
    {
        intAttr("duration_ns", 13, n.durationNs);
    }
    PutVarint(out, body.size());
    out += body;
}

std::string
GzipBytes(const std::string& bytes, int level)
{
    CheckGzipLevel(level);
    z_stream zs{};
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's
    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    {
        throw WorkloadError("gzip: deflateInit2 failed");
    }
    std::string out;
    out.resize(deflateBound(&zs, static_cast<uLong>(bytes.size())) + 32);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs.avail_in = static_cast<uInt>(bytes.size());
    zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&zs, Z_FINISH);
    const uint64_t produced = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
    {
        throw WorkloadError("gzip: deflate failed (" + std::to_string(rc) + ")");
    }
    out.resize(produced);
    return out;
}

uint64_t
WriteChakraBytes(const std::string& bytes, const std::string& path, const ChakraWriteOptions& opts)
{
    const std::string z = opts.gzip ? GzipBytes(bytes, opts.gzipLevel) : std::string();
    const std::string& data = opts.gzip ? z : bytes;
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f)
    {
        throw WorkloadError(path + ": cannot open for writing");
    }
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    f.close();
    if (!f)
    {
        throw WorkloadError(path + ": write error");
    }
    return data.size();
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
