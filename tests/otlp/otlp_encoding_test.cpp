// src/otlp's encoding: a record and its decoded fields as a LogRecord, the
// severity of each ETW level, the URL rules, and the request bytes read back
// with the classes protoc generated from the same schema (protobuf and JSON).
#include "otlp/endpoint.hpp"
#include "otlp/log_record.hpp"
#include "otlp/log_request.hpp"
#include "otlp/severity.hpp"

#include "opentelemetry/proto/collector/logs/v1/logs_service.pb.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

using namespace openetw::otlp;
using opentelemetry::proto::collector::logs::v1::ExportLogsServiceRequest;
using opentelemetry::proto::common::v1::AnyValue;
using opentelemetry::proto::logs::v1::LogRecord;

namespace {

std::map<std::string, AnyValue> attributes(const LogRecord &r)
{
    std::map<std::string, AnyValue> out;
    for (const auto &kv : r.attributes()) {
        EXPECT_EQ(out.count(kv.key()), 0u) << "duplicate key " << kv.key();
        out[kv.key()] = kv.value();
    }
    return out;
}

etw_event_property value(const char *name, const char *text, uint16_t in_type, uint32_t flags,
                         const uint8_t *data = nullptr, uint32_t size = 0)
{
    etw_event_property p{};
    p.name = name;
    p.value = text;
    p.data = data;
    p.data_size = size;
    p.parent = ETW_PROPERTY_NO_PARENT;
    p.kind = ETW_PROPERTY_KIND_VALUE;
    p.in_type = in_type;
    p.flags = flags;
    return p;
}

// An array or struct of children that follow it (their parent its index).
etw_event_property node(const char *name, uint32_t kind, uint32_t children)
{
    etw_event_property p{};
    p.name = name;
    p.value = "";
    p.parent = ETW_PROPERTY_NO_PARENT;
    p.kind = kind;
    p.child_count = children;
    return p;
}

struct Sample {
    etw_record record{};
    std::vector<etw_event_property> props;
    etw_decoded_event event{};
    const uint8_t blob[3] = {0x00, 0xAB, 0xFF};

    Sample()
    {
        record.struct_size = sizeof record;
        record.kind = ETW_RECORD_KIND_EVENT;
        record.timestamp = 116444736000000000 + 17000000000000000 + 1234567; // 2023-11-14T22:13:20.1234567Z
        record.guid = {0x8E805EB3, 0x6A8F, 0x4A1E, {0x90, 0xFA, 0xA8, 0x31, 0xD9, 0x4E, 0x54, 0xA1}};
        record.event_id = 1101;
        record.version = 2;
        record.level = 3;
        record.opcode = 11;
        record.task = 7;
        record.keyword = 0x8000000000000010ull;
        record.process_id = 4242;
        record.thread_id = 77;
        const uint16_t kInt32 = 7, kUInt64 = 10, kDouble = 12, kBool = 13, kBinary = 14, kString = 2, kGuid = 15;
        props.push_back(value("Count", "-5", kInt32, ETW_PROPERTY_JSON_NUMBER));
        props.push_back(value("Big", "18446744073709551615", kUInt64, ETW_PROPERTY_JSON_NUMBER));
        props.push_back(value("Ratio", "0.25", kDouble, ETW_PROPERTY_JSON_NUMBER));
        props.push_back(value("Ok", "true", kBool, ETW_PROPERTY_JSON_BOOL));
        props.push_back(value("Blob", "0x00ABFF", kBinary, 0, blob, 3));
        props.push_back(value("Text", "héllo", kString, 0));
        props.push_back(value("Id", "{00000000-0000-0000-0000-000000000001}", kGuid, 0));
        // Sizes[2] = {1, 2}
        props.push_back(node("Sizes", ETW_PROPERTY_KIND_ARRAY, 2));
        const uint32_t a = uint32_t(props.size() - 1);
        props.push_back(value("Sizes", "1", kInt32, ETW_PROPERTY_JSON_NUMBER));
        props.back().parent = a;
        props.push_back(value("Sizes", "2", kInt32, ETW_PROPERTY_JSON_NUMBER));
        props.back().parent = a;
        // Point = {X: 3, Name: "p"}
        props.push_back(node("Point", ETW_PROPERTY_KIND_STRUCT, 2));
        const uint32_t s = uint32_t(props.size() - 1);
        props.push_back(value("X", "3", kInt32, ETW_PROPERTY_JSON_NUMBER));
        props.back().parent = s;
        props.push_back(value("Name", "p", kString, 0));
        props.back().parent = s;
        // A field named like one of the record's own attributes.
        props.push_back(value("process.pid", "9", kInt32, ETW_PROPERTY_JSON_NUMBER));
        event.struct_size = sizeof event;
        event.event_name = "AmsiScript";
        event.provider_name = "Microsoft-Antimalware-Scan-Interface";
        event.task_name = "";
        event.opcode_name = "Info";
        event.level_name = "";
        event.keywords_name = "";
        event.properties = props.data();
        event.property_count = uint32_t(props.size());
    }
};

ExportLogsServiceRequest round_trip(const LogRecord &record, Encoding encoding)
{
    std::vector<LogRecord> records{record};
    const std::string body = encode_request({"web-042", "checkout"}, records, encoding);
    EXPECT_TRUE(records.empty());
    ExportLogsServiceRequest request;
    if (encoding == Encoding::Protobuf)
        EXPECT_TRUE(request.ParseFromString(body));
    else
        EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(body, &request).ok()) << body;
    return request;
}

} // namespace

TEST(OtlpSeverity, EachEtwLevelHasItsOpenTelemetrySeverity)
{
    const struct {
        uint8_t level;
        int number;
        const char *text;
    } table[] = {{0, 9, "INFO"}, {1, 21, "FATAL"}, {2, 17, "ERROR"}, {3, 13, "WARN"},
                 {4, 9, "INFO"}, {5, 5, "DEBUG"},  {6, 1, "TRACE"},  {255, 1, "TRACE"}};
    for (const auto &row : table) {
        const Severity s = severity_of_level(row.level);
        EXPECT_EQ(s.number, row.number) << int(row.level);
        EXPECT_STREQ(s.text, row.text) << int(row.level);
    }
}

TEST(OtlpEndpoint, DefaultsToOtlpHttpsPortAndLogsPath)
{
    std::string error;
    EXPECT_EQ(logs_endpoint("http://collector", error), "http://collector:4318/v1/logs");
    EXPECT_EQ(logs_endpoint("http://127.0.0.1:9999", error), "http://127.0.0.1:9999/v1/logs");
    EXPECT_EQ(logs_endpoint("http://h:1/", error), "http://h:1/v1/logs");
    EXPECT_EQ(logs_endpoint("http://h:1/custom/logs", error), "http://h:1/custom/logs");
    EXPECT_EQ(logs_endpoint("http://[::1]", error), "http://[::1]:4318/v1/logs");
    EXPECT_EQ(logs_endpoint("https://collector", error), "https://collector:4318/v1/logs");
    EXPECT_EQ(logs_endpoint("https://h:443/custom", error), "https://h:443/custom");
    EXPECT_TRUE(error.empty()) << error;
}

TEST(OtlpEndpoint, RefusesMalformedUrlsSayingWhy)
{
    const struct {
        const char *url;
        const char *says;
    } table[] = {{"ftp://collector:4318", "not an http[s]://"},
                 {"collector:4318", "not an http[s]://"},
                 {"https://", "needs a host"},
                 {"http://", "needs a host"},
                 {"http://user@h:4318", "needs a host"},
                 {"http://h:99999", "bad port"},
                 {"http://h:0", "bad port"},
                 {"http://h:x1", "bad port"}};
    for (const auto &row : table) {
        std::string error;
        EXPECT_EQ(logs_endpoint(row.url, error), "") << row.url;
        EXPECT_NE(error.find(row.says), std::string::npos) << row.url << ": " << error;
    }
}

TEST(OtlpEncoding, ARecordKeepsItsTimeSeverityIdentityAndTypedFields)
{
    Sample s;
    LogRecord record;
    to_log_record(s.record, &s.event, 1700000000999000000ull, record);
    for (Encoding encoding : {Encoding::Protobuf, Encoding::Json}) {
        const ExportLogsServiceRequest request = round_trip(record, encoding);
        ASSERT_EQ(request.resource_logs_size(), 1);
        const auto &rl = request.resource_logs(0);
        ASSERT_EQ(rl.resource().attributes_size(), 2);
        EXPECT_EQ(rl.resource().attributes(0).key(), "host.name");
        EXPECT_EQ(rl.resource().attributes(0).value().string_value(), "web-042");
        EXPECT_EQ(rl.resource().attributes(1).key(), "service.name");
        EXPECT_EQ(rl.resource().attributes(1).value().string_value(), "checkout");
        ASSERT_EQ(rl.scope_logs_size(), 1);
        EXPECT_EQ(rl.scope_logs(0).scope().name(), "openetw");
        ASSERT_EQ(rl.scope_logs(0).log_records_size(), 1);
        const LogRecord &r = rl.scope_logs(0).log_records(0);
        EXPECT_EQ(r.time_unix_nano(), 1700000000123456700ull);
        EXPECT_EQ(r.observed_time_unix_nano(), 1700000000999000000ull);
        EXPECT_EQ(r.severity_number(), opentelemetry::proto::logs::v1::SEVERITY_NUMBER_WARN);
        EXPECT_EQ(r.severity_text(), "WARN");
        EXPECT_EQ(r.body().string_value(), "AmsiScript");

        auto a = attributes(r);
        EXPECT_EQ(a["etw.provider.guid"].string_value(), "{8E805EB3-6A8F-4A1E-90FA-A831D94E54A1}");
        EXPECT_EQ(a["etw.provider.name"].string_value(), "Microsoft-Antimalware-Scan-Interface");
        EXPECT_EQ(a["etw.event.name"].string_value(), "AmsiScript");
        EXPECT_EQ(a["etw.event.id"].int_value(), 1101);
        EXPECT_EQ(a["etw.event.version"].int_value(), 2);
        EXPECT_EQ(a["etw.event.level"].int_value(), 3);
        EXPECT_EQ(a["etw.event.opcode"].int_value(), 11);
        EXPECT_EQ(a["etw.event.task"].int_value(), 7);
        EXPECT_EQ(a["etw.event.keyword"].string_value(), "0x8000000000000010");
        EXPECT_EQ(a["etw.event.opcode_name"].string_value(), "Info");
        EXPECT_EQ(a.count("etw.event.task_name"), 0u); // the schema has none
        EXPECT_EQ(a["process.pid"].int_value(), 4242);
        EXPECT_EQ(a["thread.id"].int_value(), 77);

        EXPECT_EQ(a["Count"].value_case(), AnyValue::kIntValue);
        EXPECT_EQ(a["Count"].int_value(), -5);
        EXPECT_EQ(a["Big"].string_value(), "18446744073709551615"); // above INT64_MAX
        EXPECT_EQ(a["Ratio"].value_case(), AnyValue::kDoubleValue);
        EXPECT_EQ(a["Ratio"].double_value(), 0.25);
        EXPECT_EQ(a["Ok"].value_case(), AnyValue::kBoolValue);
        EXPECT_TRUE(a["Ok"].bool_value());
        EXPECT_EQ(a["Blob"].bytes_value(), std::string("\x00\xAB\xFF", 3));
        EXPECT_EQ(a["Text"].string_value(), "héllo");
        EXPECT_EQ(a["Id"].string_value(), "{00000000-0000-0000-0000-000000000001}");
        ASSERT_EQ(a["Sizes"].array_value().values_size(), 2);
        EXPECT_EQ(a["Sizes"].array_value().values(0).int_value(), 1);
        EXPECT_EQ(a["Sizes"].array_value().values(1).int_value(), 2);
        const auto &point = a["Point"].kvlist_value();
        ASSERT_EQ(point.values_size(), 2);
        EXPECT_EQ(point.values(0).key(), "X");
        EXPECT_EQ(point.values(0).value().int_value(), 3);
        EXPECT_EQ(point.values(1).key(), "Name");
        EXPECT_EQ(point.values(1).value().string_value(), "p");
        EXPECT_EQ(a["etw.field.process.pid"].int_value(), 9);
        // 12 of the record (no task name), 10 fields.
        EXPECT_EQ(a.size(), 22u);
    }
}

TEST(OtlpEncoding, JsonIsTheSameRequestAsProtobufWithNumericEnumsAndCamelCase)
{
    Sample s;
    LogRecord record;
    to_log_record(s.record, &s.event, 1, record);
    std::vector<LogRecord> records{record};
    const std::string json = encode_request({"h", "s"}, records, Encoding::Json);
    EXPECT_NE(json.find("\"severityNumber\":13"), std::string::npos) << json;
    EXPECT_NE(json.find("\"timeUnixNano\":\"1700000000123456700\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"scopeLogs\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"bytesValue\":\"AKv/\""), std::string::npos) << json; // base64
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(round_trip(record, Encoding::Json),
                                                                   round_trip(record, Encoding::Protobuf)));
}

TEST(OtlpEncoding, AnUndecodedRecordIsSentWithItsIdentityAndNoFields)
{
    Sample s;
    s.record.level = 0;
    LogRecord record;
    to_log_record(s.record, nullptr, 1, record);
    EXPECT_EQ(record.body().string_value(), "{8E805EB3-6A8F-4A1E-90FA-A831D94E54A1} event 1101");
    EXPECT_EQ(record.severity_number(), opentelemetry::proto::logs::v1::SEVERITY_NUMBER_INFO);
    auto a = attributes(record);
    EXPECT_EQ(a.count("etw.provider.name"), 0u);
    EXPECT_EQ(a.count("etw.event.name"), 0u);
    EXPECT_EQ(a["etw.event.level"].int_value(), 0);
    EXPECT_EQ(a.size(), 9u); // no names, no fields
}

TEST(OtlpEncoding, TimesBefore1970AreZeroNotNegative)
{
    EXPECT_EQ(unix_nanos_of_filetime(0), 0u);
    EXPECT_EQ(unix_nanos_of_filetime(116444736000000000), 0u);
    EXPECT_EQ(unix_nanos_of_filetime(116444736000000001), 100u);
}
