// A real nats-server with JetStream for the tests: started on 127.0.0.1 on a
// free port with its storage in a fresh folder, killed (SIGKILL) and started
// again on the same storage, stopped and removed at the end. No mock.
#pragma once

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace natstest {

inline int free_port()
{
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    bind(s, reinterpret_cast<sockaddr *>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(s, reinterpret_cast<sockaddr *>(&a), &len);
    close(s);
    return ntohs(a.sin_port);
}

class NatsServer {
public:
    explicit NatsServer(std::vector<std::string> extra = {}) : extra_(std::move(extra))
    {
        static int n = 0;
        dir_ = (std::filesystem::temp_directory_path() /
                ("openetw-nats-" + std::to_string(getpid()) + "-" + std::to_string(n++)))
                   .string();
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_ + "/js");
        port_ = free_port();
        start();
    }
    ~NatsServer()
    {
        stop(SIGTERM);
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }

    // Starts the server (again, on the same storage) and waits until it
    // says it is ready (JetStream included).
    void start()
    {
        const std::size_t logged = log_text().size();
        pid_ = fork();
        if (pid_ == 0) {
            const int fd = open((dir_ + "/nats.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
            dup2(fd, 1);
            dup2(fd, 2);
            std::vector<std::string> args = {"nats-server", "-js",       "-sd", dir_ + "/js",
                                             "-a",          "127.0.0.1", "-p",  std::to_string(port_)};
            args.insert(args.end(), extra_.begin(), extra_.end());
            std::vector<char *> argv;
            for (std::string &a : args)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            execvp("nats-server", argv.data());
            _exit(127);
        }
        // Bounded: a server that never gets ready fails the test here, with its log.
        for (int i = 0; i < 400; ++i) {
            if (log_text().find("Server is ready", logged) != std::string::npos)
                return;
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        ADD_FAILURE() << "nats-server did not get ready:\n" << log_text();
    }
    void kill9() { stop(SIGKILL); }
    void stop(int sig = SIGTERM)
    {
        if (pid_ <= 0)
            return;
        kill(pid_, sig);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
    }

    int port() const { return port_; }
    std::string url(const std::string &stream) const
    {
        return "nats://127.0.0.1:" + std::to_string(port_) + "/" + stream;
    }
    const std::string &dir() const { return dir_; }
    std::string log_text() const
    {
        std::ifstream f(dir_ + "/nats.log");
        std::stringstream s;
        s << f.rdbuf();
        return s.str();
    }

private:
    std::vector<std::string> extra_;
    std::string dir_;
    int port_ = 0;
    pid_t pid_ = -1;
};

} // namespace natstest
