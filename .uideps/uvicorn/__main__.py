import uvicorn

if __name__ == "__main__":
    uvicorn.main()
