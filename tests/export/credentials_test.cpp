// The NATS credentials file: its keys, and the line of each mistake.
#include "export/credentials.hpp"

#include <gtest/gtest.h>

using namespace openetw;
using namespace openetw::exporter;

TEST(Credentials, KeysAreReadWithCommentsAndBlankLinesSkipped)
{
    Credentials c;
    ASSERT_TRUE(parse_credentials("# fleet collector\n\nuser = alice\npassword= s3 cret \n"
                                  "tls_ca=/etc/ca.pem\ntls_cert = /c.pem\ntls_key = /k.pem\r\n",
                                  "f", &c));
    EXPECT_EQ(c.user, "alice");
    EXPECT_EQ(c.password, "s3 cret");
    EXPECT_EQ(c.tls_ca, "/etc/ca.pem");
    EXPECT_TRUE(c.tls());
    ASSERT_TRUE(parse_credentials("token=abc\n", "f", &c));
    EXPECT_EQ(c.token, "abc");
    EXPECT_FALSE(c.tls());
}

TEST(Credentials, EachMistakeNamesItsLine)
{
    Credentials c;
    Status st = parse_credentials("user=a\npassword=b\ncolour=blue\n", "/etc/x", &c);
    EXPECT_EQ(st.code, ETW_ERROR_INVALID_DATA);
    EXPECT_NE(st.message.find("/etc/x:3: unknown key \"colour\""), std::string::npos) << st.message;
    st = parse_credentials("token abc\n", "/etc/x", &c);
    EXPECT_NE(st.message.find("/etc/x:1:"), std::string::npos) << st.message;
    EXPECT_EQ(parse_credentials("user=a\n", "f", &c).code, ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(parse_credentials("tls_cert=/c\n", "f", &c).code, ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(parse_credentials("nkey_seed=/s\n", "f", &c).code, ETW_ERROR_INVALID_DATA);
}

TEST(Credentials, AMissingFileIsFileNotFoundAndNoFileIsNoCredentials)
{
    Credentials c;
    EXPECT_EQ(read_credentials("/tmp/openetw-no-such-creds-file", &c).code, ETW_ERROR_FILE_NOT_FOUND);
    EXPECT_EQ(read_credentials("/nonexistent-folder/creds", &c).code, ETW_ERROR_PATH_NOT_FOUND);
    ASSERT_TRUE(read_credentials("", &c));
    EXPECT_TRUE(c.user.empty() && c.token.empty() && !c.tls());
}
